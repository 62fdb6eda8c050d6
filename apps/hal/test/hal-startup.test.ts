import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, ensureBuilt, type HalProcess, startHalProcess } from './hal-serve.test-support.js';

describe('hal serve (built)', () => {
  let dataDir: string;
  const running: HalProcess[] = [];

  beforeAll(() => {
    ensureBuilt();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-serve-'));
  }, 600_000);

  afterAll(async () => {
    for (const hal of running) await hal.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the first operator and the URL, accepts a real login, and stops on SIGTERM', async () => {
    const first = await startHalProcess(dataDir);
    running.push(first);
    const lines = first.stdout().split('\n');
    expect(lines[0]).toBe('operator: admin');
    const password = /^password: (\S+)$/.exec(lines[1] ?? '')?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const login = await fetch(`${first.url}/ops/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^hal_session=/);
    const session = await fetch(`${first.url}/ops/api/session`, { headers: { cookie } });
    expect(session.status).toBe(200);
    expect((await session.json()).operator.username).toBe('admin');
    const health = await fetch(`${first.url}/api/health`);
    expect((await health.json()).db).toBe('ok');

    expect(await first.stop()).toBe(0);
    // The one-time password goes to stdout only, never into the log.
    expect(first.stderr()).not.toContain(password);
  });

  it('prints no password on later runs', async () => {
    const second = await startHalProcess(dataDir);
    running.push(second);
    expect(second.stdout()).not.toContain('password:');
    expect(second.stdout()).toMatch(/^HAL listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(await second.stop()).toBe(0);
  });

  it('exits 1 with a clear message when the environment is wrong', () => {
    let failure: { status: number | null; stderr: string } = { status: 0, stderr: '' };
    try {
      execFileSync(process.execPath, [cliPath, 'serve'], {
        env: { PATH: process.env.PATH, HAL_DATA_DIR: dataDir, HAL_PORT: 'x' },
        stdio: 'pipe',
      });
    } catch (error) {
      const caught = error as { status: number | null; stderr: Buffer };
      failure = { status: caught.status, stderr: caught.stderr.toString() };
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr).toContain('HAL_PORT');
  });
});
