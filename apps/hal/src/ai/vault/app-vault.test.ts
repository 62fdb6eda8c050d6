import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import { parseSealed, REDACTED, VAULT_KEY_INVALID } from '@hal-ai/vault';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { up } from '../../platform/db/migrations/0003-vault.js';
import type { VaultTables } from '../../platform/db/tables/vault.js';
import { createAppVault, VAULT_KEY_FILE, VAULT_PREVIOUS_KEY_FILE } from './index.js';

const newSecret = () => randomBytes(24).toString('base64url');
const newKeyText = () => randomBytes(32).toString('base64');

describe('createAppVault', () => {
  let dataDir: string;
  let db: Kysely<VaultTables>;
  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-vault-'));
    db = new Kysely<VaultTables>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    await up(db as Kysely<unknown>);
  });
  afterEach(async () => {
    await db.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const keyIdsInDb = async () =>
    new Set(
      (await db.selectFrom('vault_entries').select('sealed').execute()).map(
        (row) => parseSealed(row.sealed)?.keyId,
      ),
    );

  it('creates <dataDir>/vault.key 0600 on the first run and opens the same entries on the next', async () => {
    const secret = newSecret();
    const first = await createAppVault({ db, config: { dataDir }, env: {} });
    await first.set('ai:conn:1:api_key', secret);
    expect(fs.statSync(path.join(dataDir, VAULT_KEY_FILE)).mode & 0o777).toBe(0o600);

    const second = await createAppVault({ db, config: { dataDir }, env: {} });
    expect(second.keyId).toBe(first.keyId);
    expect(await second.get('ai:conn:1:api_key')).toBe(secret);
    // Loaded at start-up: redaction knows the stored secret before anything asks for it.
    expect(second.redact({ note: `key ${secret}` })).toEqual({ note: `key ${REDACTED}` });
  });

  it('uses HAL_VAULT_KEY (config.vaultKey) and writes no key file', async () => {
    const vault = await createAppVault({ db, config: { dataDir, vaultKey: newKeyText() }, env: {} });
    await vault.set('a', newSecret());
    expect(fs.existsSync(path.join(dataDir, VAULT_KEY_FILE))).toBe(false);
    const weak = await createAppVault({
      db,
      config: { dataDir, vaultKey: Buffer.alloc(32).toString('base64') },
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(HalError.isInstance(weak) && weak.code).toBe(VAULT_KEY_INVALID);
  });

  it('refuses to mint a new key when vault.key is missing but entries exist', async () => {
    const vault = await createAppVault({ db, config: { dataDir }, env: {} });
    await vault.set('a', newSecret());
    fs.rmSync(path.join(dataDir, VAULT_KEY_FILE));
    const error = await createAppVault({ db, config: { dataDir }, env: {} }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(HalError.isInstance(error) && error.code).toBe(VAULT_KEY_INVALID);
    expect((error as Error).message).toMatch(/missing.*1 sealed entries/);
    expect(fs.existsSync(path.join(dataDir, VAULT_KEY_FILE))).toBe(false);
  });

  it('rotates the key file: mv vault.key vault.key.previous, restart → every entry under a new vault.key', async () => {
    const secrets = new Map(Array.from({ length: 4 }, (_, i) => [`entry-${i}`, newSecret()] as const));
    const before = await createAppVault({ db, config: { dataDir }, env: {} });
    for (const [id, secret] of secrets) await before.set(id, secret);
    fs.renameSync(path.join(dataDir, VAULT_KEY_FILE), path.join(dataDir, VAULT_PREVIOUS_KEY_FILE));

    const logged: Array<{ object: object; message: string }> = [];
    const logger = { info: (object: object, message: string) => logged.push({ object, message }), warn() {} };
    const after = await createAppVault({ db, config: { dataDir }, env: {}, logger });
    expect(after.keyId).not.toBe(before.keyId);
    expect(fs.statSync(path.join(dataDir, VAULT_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(await keyIdsInDb()).toEqual(new Set([after.keyId]));
    for (const [id, secret] of secrets) expect(await after.get(id)).toBe(secret);
    expect(logged[0]?.object).toMatchObject({ rotated: 4, alreadyCurrent: 0 });

    // Restarting with the previous file still present re-checks and changes nothing.
    const again = await createAppVault({ db, config: { dataDir }, env: {}, logger });
    expect(again.keyId).toBe(after.keyId);
    expect(logged[1]?.object).toMatchObject({ rotated: 0, alreadyCurrent: 4 });
  });

  it('rotates an environment key through HAL_VAULT_PREVIOUS_KEY', async () => {
    const oldKey = newKeyText();
    const newKey = newKeyText();
    const secret = newSecret();
    await (await createAppVault({ db, config: { dataDir, vaultKey: oldKey }, env: {} })).set('a', secret);
    const rotated = await createAppVault({
      db,
      config: { dataDir, vaultKey: newKey },
      env: { HAL_VAULT_PREVIOUS_KEY: oldKey },
    });
    expect(await rotated.get('a')).toBe(secret);
    expect(await keyIdsInDb()).toEqual(new Set([rotated.keyId]));
  });

  it('logs entries that do not open by id and code, and still starts', async () => {
    await createAppVault({ db, config: { dataDir }, env: {} });
    await db.insertInto('vault_entries').values({ id: 'broken', sealed: 'v1.x', updated_at: '' }).execute();
    const warnings: object[] = [];
    const vault = await createAppVault({
      db,
      config: { dataDir },
      env: {},
      logger: { info() {}, warn: (object) => warnings.push(object) },
    });
    expect(warnings).toEqual([
      { failed: [{ id: 'broken', code: 'vault_integrity', reason: 'malformed' }], keyId: vault.keyId },
    ]);
  });
});
