import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { Migrator } from 'kysely';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeOpenAIConnection } from '../test/fake-connection.test-support.js';
import { TEST_SCRYPT_PARAMS } from '../test/foundation.test-support.js';
import { installFakeClaude, installFakeCodex } from './ai/connections/connection-fakes.test-support.js';
import { createConnectionSchema } from './ai/connections/connection-schemas.js';
import { runCli } from './cli.js';
import type { DoctorReport } from './cli-doctor.js';
import { createOperator } from './domain/auth/auth-operators.js';
import { createHalRuntime } from './hal-runtime.js';
import { loadConfig } from './platform/config.js';
import { openDatabase } from './platform/db/database.js';
import { migrationProvider } from './platform/db/migrations/index.js';
import { createLogger } from './platform/logger.js';

let root: string;
let dataDir: string;
/** HAL's environment in these tests: no CLI on the search path, a HOME of its own. */
let env: Record<string, string | undefined>;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-doctor-'));
  dataDir = path.join(root, 'data');
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(root, 'bin'));
  env = { HAL_DATA_DIR: dataDir, PATH: path.join(root, 'bin'), HOME: home };
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** A generated base64 key (never a literal). */
function newKey(): string {
  return randomBytes(32).toString('base64');
}

/** Starts HAL's runtime on the data folder once (migrations, key file, first secrets), runs `work`, closes. */
async function withRuntime(
  work: (runtime: Awaited<ReturnType<typeof createHalRuntime>>) => Promise<void> = async () => {},
  runtimeEnv: Record<string, string | undefined> = env,
) {
  const runtime = await createHalRuntime(
    { ...loadConfig(runtimeEnv), passwordHashing: TEST_SCRYPT_PARAMS },
    {
      env: runtimeEnv,
      logger: createLogger({ level: 'silent' }),
      skill: 'HAL SKILL DOCUMENT (test)',
      connections: { cli: { env: runtimeEnv, homedir: runtimeEnv.HOME ?? root } },
    },
  );
  try {
    await work(runtime);
  } finally {
    await runtime.close();
  }
}

async function doctor(args: string[] = [], doctorEnv = env) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['doctor', ...args], {
    env: doctorEnv,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

async function report(args: string[] = [], doctorEnv = env) {
  const result = await doctor([...args, '--json'], doctorEnv);
  return { ...result, report: JSON.parse(result.stdout) as DoctorReport };
}

function find(report: DoctorReport, id: string) {
  const found = report.checks.filter((check) => check.id === id);
  expect(found, `check ${id}`).not.toHaveLength(0);
  return found.length === 1 ? found[0]! : found;
}

/** Creates a connection (as the console does: parsed, then checked at once) by a first operator. */
async function addConnection(input: unknown) {
  await withRuntime(async (runtime) => {
    const { operator } = await createOperator({ ...runtime, passwordParams: TEST_SCRYPT_PARAMS }, 'alice');
    await runtime.connections.create(v.parse(createConnectionSchema, input), operator);
  });
}

async function sealASecret() {
  const secret = randomBytes(24).toString('base64url');
  await withRuntime(async (runtime) => {
    await runtime.vault.set('doctor:test', secret);
  });
  return secret;
}

describe('hal doctor on a healthy data folder', () => {
  it('passes every check, prints the verdict and exits 0; --json says the same', async () => {
    const secret = await sealASecret();
    const text = await doctor();
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`hal doctor: ${dataDir} (SQLite)`);
    expect(text.stdout).toMatch(/ok\s+data folder/);
    expect(text.stdout).toMatch(/ok\s+database\s+.*integrity_check ok/);
    expect(text.stdout).toMatch(/ok\s+migrations\s+all \d+ migrations applied/);
    expect(text.stdout).toMatch(/ok\s+vault key\s+.*opens all 1 stored secrets/);
    expect(text.stdout).toMatch(/skip\s+claude CLI\s+not installed/);
    expect(text.stdout).toContain('everything is in order');
    expect(text.stdout).not.toContain(secret);

    const json = await report();
    expect(json.code).toBe(0);
    expect(json.report.ok).toBe(true);
    expect(json.report.checks.map((check) => check.id)).toEqual([
      'data-folder',
      'database',
      'migrations',
      'vault-key',
      'cli:claude',
      'cli:codex',
    ]);
    expect(json.report.checks.filter((check) => check.status === 'fail')).toEqual([]);
  });

  it('is in --help, and a folder HAL never started in is a warning, not a failure', async () => {
    const help = await doctor(['--help']);
    expect(help.stdout).toContain('Usage: hal doctor [--network] [--json]');
    expect(help.stdout).toContain('--network');
    const fresh = await report();
    expect(fresh.code).toBe(0);
    expect(find(fresh.report, 'data-folder')).toMatchObject({ status: 'warn' });
    expect(find(fresh.report, 'database')).toMatchObject({ status: 'warn' });
    // Nothing was created by looking.
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});

describe('hal doctor finds what is wrong', () => {
  it('a data folder and files others may read: each named with its chmod, exit 1', async () => {
    await sealASecret();
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, 'hal.db'), 0o644);
    const text = await doctor();
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/FAIL\s+data folder/);
    expect(text.stdout).toContain(`fix: chmod 700 ${dataDir}`);
    expect(text.stdout).toContain(`fix: chmod 600 ${path.join(dataDir, 'hal.db')}`);
    expect(text.stdout).toMatch(/\d problems? to fix/);
    // The doctor reports; it does not change the modes itself.
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o755);
  });

  it('a key that is not the one the vault was sealed under, and a malformed HAL_VAULT_KEY', async () => {
    await sealASecret();
    fs.writeFileSync(path.join(dataDir, 'vault.key'), `${newKey()}\n`, { mode: 0o600 });
    const wrong = await report();
    expect(wrong.code).toBe(1);
    expect(find(wrong.report, 'vault-key')).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('1 of 1 stored secrets do not open'),
    });

    const malformed = await report([], { ...env, HAL_VAULT_KEY: 'not-a-key' });
    expect(malformed.code).toBe(1);
    expect(find(malformed.report, 'vault-key')).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('HAL_VAULT_KEY must be exactly 32 bytes'),
    });

    fs.rmSync(path.join(dataDir, 'vault.key'));
    const missing = await report();
    expect(find(missing.report, 'vault-key')).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('is missing but the vault holds 1 sealed entries'),
    });
  });

  it('says when HAL_VAULT_PREVIOUS_KEY is still needed, and when it no longer is', async () => {
    const oldKey = newKey();
    await withRuntime(
      async (runtime) => runtime.vault.set('doctor:test', randomBytes(24).toString('base64url')),
      { ...env, HAL_VAULT_KEY: oldKey },
    );
    const rotated = { ...env, HAL_VAULT_KEY: newKey(), HAL_VAULT_PREVIOUS_KEY: oldKey };
    const before = await report([], rotated);
    expect(before.code).toBe(0);
    expect(find(before.report, 'vault-key')).toMatchObject({ status: 'ok' });
    expect(find(before.report, 'vault-previous-key')).toMatchObject({
      status: 'warn',
      summary: 'HAL_VAULT_PREVIOUS_KEY is still needed: 1 secret(s) are sealed under it',
    });
    // A start re-seals every entry under the current key.
    await withRuntime(async () => {}, rotated);
    const after = await report([], rotated);
    expect(find(after.report, 'vault-previous-key')).toMatchObject({
      status: 'warn',
      summary: 'HAL_VAULT_PREVIOUS_KEY is no longer needed: no stored secret is sealed under it',
    });
  });

  it('a corrupted database file', async () => {
    await sealASecret();
    const file = path.join(dataDir, 'hal.db');
    const size = fs.statSync(file).size;
    expect(size).toBeGreaterThan(5 * 4096);
    const handle = fs.openSync(file, 'r+');
    fs.writeSync(handle, randomBytes(3 * 4096), 0, 3 * 4096, 2 * 4096);
    fs.closeSync(handle);
    const damaged = await report();
    expect(damaged.code).toBe(1);
    expect(find(damaged.report, 'database')).toMatchObject({
      status: 'fail',
      fix: [expect.stringContaining('hal db restore')],
    });
  });

  it('pending migrations, named', async () => {
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const database = openDatabase(path.join(dataDir, 'hal.db'));
    const migrator = new Migrator({ db: database.db, provider: migrationProvider });
    const names = (await migrator.getMigrations()).map((migration) => migration.name);
    await migrator.migrateTo(names[names.length - 3]!);
    await database.close();
    const pending = await report();
    expect(pending.code).toBe(1);
    expect(find(pending.report, 'migrations')).toMatchObject({
      status: 'fail',
      summary: `2 of ${names.length} migrations pending: ${names.slice(-2).join(', ')}`,
      fix: [expect.stringContaining('hal db migrate')],
    });
  });

  it('an unreachable PostgreSQL', async () => {
    // A loopback port nobody listens on.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const result = await report([], {
      ...env,
      HAL_DATABASE_URL: `postgres://hal:${randomBytes(8).toString('hex')}@127.0.0.1:${port}/hal`,
    });
    expect(result.code).toBe(1);
    expect(result.report.database).toBe('postgres');
    expect(find(result.report, 'database')).toMatchObject({
      status: 'fail',
      summary: expect.stringContaining('PostgreSQL does not answer'),
    });
  });
});

describe('hal doctor and the local CLIs', () => {
  it('reports path, version and login state as discovery finds them; a missing CLI a connection uses fails', async () => {
    const claude = installFakeClaude(path.join(root, 'bin'), { loggedIn: true, version: '2.1.197' });
    const codex = installFakeCodex(path.join(root, 'bin'), { loggedIn: false });
    await sealASecret();
    const found = await report();
    expect(find(found.report, 'cli:claude')).toMatchObject({
      status: 'ok',
      summary: `${claude} (2.1.197), logged in`,
    });
    expect(find(found.report, 'cli:codex')).toMatchObject({
      status: 'warn',
      summary: `${codex} (0.171.0), not logged in`,
    });
    expect(found.code).toBe(0);

    fs.rmSync(codex);
    await addConnection({ provider: 'local-cli', name: 'cli', auth: 'cli', cli: { tool: 'codex' } });
    const missing = await report();
    expect(missing.code).toBe(1);
    expect(find(missing.report, 'cli:codex')).toMatchObject({
      status: 'fail',
      fix: [expect.stringContaining('CODEX_BIN')],
    });
  });
});

describe('hal doctor --network', () => {
  let fake: FakeServer;
  let apiKey: string;

  beforeEach(async () => {
    apiKey = randomBytes(24).toString('base64url');
    fake = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-test' }] });
  });

  afterEach(async () => {
    await fake.close();
  });

  it("runs each connection's check against its provider: reachable, then down", async () => {
    await addConnection(fakeOpenAIConnection(fake.baseUrl, apiKey));
    const before = fake.requests.length;
    const withoutNetwork = await report();
    expect(withoutNetwork.report.checks.some((check) => check.id.startsWith('connection'))).toBe(false);
    expect(fake.requests.length).toBe(before);

    const up = await doctor(['--network']);
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(new RegExp(`ok\\s+connection GPT\\s+${fake.baseUrl} answers: 1 model`));
    expect(
      fake.requests.some((r) => r.path === '/v1/models' && r.headers.authorization === `Bearer ${apiKey}`),
    ).toBe(true);

    await fake.close();
    const down = await doctor(['--network']);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/FAIL\s+connection GPT\s+.*error/);
    expect(down.stdout).toContain('fix: check the base URL');
    expect(`${up.stdout}${down.stdout}`).not.toContain(apiKey);
  });
});
