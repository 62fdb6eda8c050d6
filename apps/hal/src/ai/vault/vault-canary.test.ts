import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseSealed, REDACTED } from '@hal-ai/vault';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up } from '../../platform/db/migrations/0003-vault.js';
import type { VaultTables } from '../../platform/db/tables/vault.js';
import { createAppVault, vaultLogRedaction } from './index.js';

/**
 * The canary: secrets made per run go through the real SQLite file (WAL) and a pino logger set up
 * like HAL's; afterwards no byte of the database, its WAL and shared-memory files, or the log holds
 * any of them in any encoding.
 */

// Base64 text plus `/`, so the URL-encoded form differs from the raw one.
const newSecret = () => `${randomBytes(18).toString('base64')}/${randomBytes(9).toString('hex')}`;

function encodings(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, 'utf8');
  return {
    raw: secret,
    base64: bytes.toString('base64'),
    base64url: bytes.toString('base64url'),
    hex: bytes.toString('hex'),
    hexUpper: bytes.toString('hex').toUpperCase(),
    url: encodeURIComponent(secret),
  };
}

describe('vault canary: no secret in the database files or the logs', () => {
  let dir: string;
  let sqlite: BetterSqlite3.Database;
  let db: Kysely<VaultTables>;
  const kept = newSecret();
  const replaced = newSecret();
  const deleted = newSecret();
  const files: Record<string, Buffer> = {};
  let logText = '';
  let keptSealed = '';

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-canary-'));
    const dbFile = path.join(dir, 'hal.db');
    // As the app opens its database (src/db/database.ts).
    sqlite = new BetterSqlite3(dbFile);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<VaultTables>({ dialect: new SqliteDialect({ database: sqlite }) });
    await up(db as Kysely<unknown>);

    const vault = await createAppVault({ db, config: { dataDir: dir }, env: {} });
    await vault.set('ai:conn:1:api_key', replaced);
    await vault.set('ai:conn:1:api_key', kept);
    await vault.set('ai:conn:2:oauth', deleted);
    expect(await vault.get('ai:conn:1:api_key')).toBe(kept);
    await vault.delete('ai:conn:2:oauth');
    keptSealed = (await db.selectFrom('vault_entries').select('sealed').executeTakeFirstOrThrow()).sealed;

    const logFile = path.join(dir, 'hal.log');
    const destination = pino.destination({ dest: logFile, sync: true });
    // Redaction knows secrets still stored; for the test also the ones this run replaced/deleted.
    const { createRedactor } = await import('@hal-ai/vault');
    const extra = createRedactor([replaced, deleted]);
    const redact = <T>(value: T): T => extra.redact(vault.redact(value));
    const logger = pino({ level: 'info', base: { name: 'hal' }, ...vaultLogRedaction(redact) }, destination);
    for (const secret of [kept, replaced, deleted]) {
      const forms = encodings(secret);
      logger.info(
        { connection: { apiKey: secret, headers: { authorization: `Bearer ${secret}` } } },
        'provider call',
      );
      logger.info(`message text with ${secret}`);
      logger.warn({ encoded: Object.values(forms) }, 'interpolated %s and %s', forms.hex, forms.url);
      logger.error(new Error(`provider said: invalid key ${forms.url}`));
      logger.error({ err: new Error(`wrapped ${forms.base64}`), list: [[forms.base64url]] }, 'failed');
      logger.child({ token: forms.hexUpper }).info('child logger binding');
    }
    destination.flushSync();
    logText = fs.readFileSync(logFile, 'utf8');

    // Read the files while the database is open, so the WAL still holds the writes.
    for (const suffix of ['', '-wal', '-shm']) files[`hal.db${suffix}`] = fs.readFileSync(dbFile + suffix);
  });

  afterAll(async () => {
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads real files: the WAL holds the writes, the sealed entry is there, the log has the calls', () => {
    expect(files['hal.db-wal']!.length).toBeGreaterThan(0);
    expect(files['hal.db-shm']!.length).toBeGreaterThan(0);
    const nonce = parseSealed(keptSealed)!.nonce.toString('base64url');
    const inDatabase = Object.values(files).some((bytes) => bytes.includes(Buffer.from(nonce)));
    expect(inDatabase, 'the sealed entry is in the database files').toBe(true);
    expect(logText.split('\n').filter(Boolean)).toHaveLength(18);
    expect(logText).toContain(REDACTED);
    expect(logText).toContain('provider said: invalid key');
  });

  it.each([
    ['kept', () => kept],
    ['replaced', () => replaced],
    ['deleted', () => deleted],
  ])('the %s secret is in none of hal.db, -wal, -shm or the log, in any encoding', (_name, secret) => {
    for (const [form, text] of Object.entries(encodings(secret()))) {
      for (const [file, bytes] of Object.entries(files)) {
        expect(bytes.includes(Buffer.from(text, 'utf8')), `${form} in ${file}`).toBe(false);
      }
      expect(logText.includes(text), `${form} in the log`).toBe(false);
    }
  });
});
