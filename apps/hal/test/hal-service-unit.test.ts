import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './e2e/panel-browser.test-support.js';
import { readEnvironmentFile, readUnitFile, type UnitFile } from './hal-service-unit.test-support.js';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(appDir, '../..');
const deployDir = path.join(repoRoot, 'deploy');

/** systemd's PATH for services (`systemd-path search-binaries-default`). */
const SYSTEMD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin';

describe('deploy/hal.service', () => {
  let unit: UnitFile;
  let workDir: string;

  beforeAll(() => {
    ensureBuilt();
    unit = readUnitFile(path.join(deployDir, 'hal.service'));
    workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hal-unit-')));
  }, 600_000);

  afterAll(() => {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('runs as its own user on a read-only system that may write the data folder only', () => {
    const service = unit.Service;
    expect(service.User?.[0]).toBe('hal');
    expect(service.ProtectSystem).toEqual(['strict']);
    expect(service.ProtectHome).toEqual(['read-only']);
    expect(service.NoNewPrivileges).toEqual(['yes']);
    expect(service.PrivateTmp).toEqual(['yes']);
    expect(service.Restart).toEqual(['on-failure']);
    expect(service.EnvironmentFile).toEqual(['/etc/hal/hal.env']);
    const environment = unit.environment();
    expect(service.ReadWritePaths).toEqual([environment.HAL_DATA_DIR]);
    // HAL's HOME (where the CLIs keep their logins) must be writable, so it lies in the data folder.
    expect(`${environment.HOME}/`.startsWith(`${environment.HAL_DATA_DIR}/`)).toBe(true);
  });

  it("starts HAL with the unit's environment, command and umask, and stops on its kill signal", async () => {
    const dataDir = path.join(workDir, 'var-lib-hal');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    // The unit's paths, moved into the temp folder; the installed release is this build.
    const place = (value: string) =>
      value
        .replaceAll('/var/lib/hal', dataDir)
        .replaceAll('/opt/hal/current', appDir)
        .replace(/^\/usr\/bin\/node(?= )/, process.execPath);
    const fileEnvironment = readEnvironmentFile(path.join(deployDir, 'hal.env.example'));
    const env: Record<string, string> = { PATH: SYSTEMD_PATH };
    for (const [name, value] of Object.entries({ ...unit.environment(), ...fileEnvironment })) {
      env[name] = place(value);
    }
    // The example listens on 7420; another process may hold it here, so only the port differs.
    env.HAL_PORT = '0';
    const [command, ...args] = place(unit.Service.ExecStart?.[0] ?? '').split(' ');
    const umask = unit.Service.UMask?.[0] ?? '0022';
    const child = spawn('/bin/sh', ['-c', `umask ${umask} && exec "$@"`, 'sh', command as string, ...args], {
      cwd: place(unit.Service.WorkingDirectory?.[0] ?? '/'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start:\n${stdout}\n${stderr}`)), 60_000);
      child.once('exit', (code) => reject(new Error(`exited ${code}:\n${stdout}\n${stderr}`)));
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const found = /^HAL listening on (http:\/\/\S+)$/m.exec(stdout)?.[1];
        if (found) {
          clearTimeout(timer);
          child.removeAllListeners('exit');
          resolve(found);
        }
      });
    });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const password = /^password: (\S+)$/m.exec(stdout)?.[1] ?? '';
      // HAL_TRUST_PROXY=1 from the environment file: behind the TLS proxy the session cookie is Secure.
      const login = await fetch(`${url}/ops/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ username: 'admin', password }),
      });
      expect(login.status).toBe(200);
      expect(login.headers.getSetCookie()[0]).toMatch(/;\s*Secure/i);
      // The data folder stays private under the unit's umask.
      for (const file of ['hal.db', 'vault.key']) {
        expect((fs.statSync(path.join(dataDir, file)).mode & 0o777).toString(8)).toBe('600');
      }
      expect((fs.statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    } finally {
      const signal = (unit.Service.KillSignal?.[0] ?? 'SIGTERM') as NodeJS.Signals;
      const timeoutS = Number.parseInt(unit.Service.TimeoutStopSec?.[0] ?? '90', 10);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      const code = await Promise.race([
        exited,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), timeoutS * 1000)),
      ]);
      if (code === 'still running') child.kill('SIGKILL');
      expect(code).toBe(0);
    }
    expect(stderr).not.toContain(/^password: (\S+)$/m.exec(stdout)?.[1] ?? 'no password printed');
  }, 120_000);
  it("the runbook's `hal` admin function works on the unit's data folder, from wherever it is called", () => {
    // docs/operations.md's function, with the unit's paths in the temp folder. `sudo -u hal` is left out: the test
    // cannot switch accounts; everything the function sets up for the CLI is what it checks.
    const runbook = fs.readFileSync(path.join(repoRoot, 'docs/operations.md'), 'utf8');
    const definition = /^hal\(\) \{.*\}$/m.exec(runbook)?.[0];
    expect(definition, 'docs/operations.md defines hal() { … }').toBeDefined();
    const dataDir = path.join(workDir, 'admin-var-lib-hal');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const envFile = path.join(workDir, 'hal.env');
    fs.copyFileSync(path.join(deployDir, 'hal.env.example'), envFile);
    const placed = (definition ?? '')
      .replace(/\bsudo -u hal /, '')
      .replaceAll('/etc/hal/hal.env', envFile)
      .replaceAll('/var/lib/hal', dataDir)
      .replaceAll('/opt/hal/current', appDir);
    // Where root's shell happens to stand: nothing may land here.
    const elsewhere = path.join(workDir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const run = spawnSync('/bin/sh', ['-c', `${placed}\nhal db migrate`], {
      cwd: elsewhere,
      env: { PATH: `${path.dirname(process.execPath)}:${SYSTEMD_PATH}` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^applied \d+ migrations?:/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect((fs.statSync(path.join(dataDir, 'hal.db')).mode & 0o777).toString(8)).toBe('600');
  }, 120_000);
});
