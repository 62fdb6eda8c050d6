import { randomBytes } from 'node:crypto';
import { createVault, generateVaultKey, openSealed, parseSealed, type VaultStore } from '@hal-ai/vault';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { up } from '../../platform/db/migrations/0003-vault.js';
import type { VaultTables } from '../../platform/db/tables/vault.js';
import { createKyselyVaultStore } from './kysely-vault-store.js';

const newSecret = () => randomBytes(24).toString('base64url');

describe('createKyselyVaultStore', () => {
  let db: Kysely<VaultTables>;
  beforeEach(async () => {
    db = new Kysely<VaultTables>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    await up(db as Kysely<unknown>);
  });
  afterEach(() => db.destroy());

  it('reads, upserts, lists and deletes rows, stamping updated_at from the clock', async () => {
    let now = Date.UTC(2030, 0, 1);
    const store = createKyselyVaultStore({ db, clock: { now: () => now } });
    expect(await store.read('a')).toBeUndefined();
    await store.write('b', 'sealed-b');
    await store.write('a', 'sealed-a1');
    now += 60_000;
    await store.write('a', 'sealed-a2');
    expect(await store.read('a')).toBe('sealed-a2');
    expect(await store.list()).toEqual(['a', 'b']);
    const row = await db
      .selectFrom('vault_entries')
      .selectAll()
      .where('id', '=', 'a')
      .executeTakeFirstOrThrow();
    expect(row.updated_at).toBe('2030-01-01T00:01:00.000Z');
    await store.delete('a');
    await store.delete('a');
    expect(await store.list()).toEqual(['b']);
  });

  it('commits a transaction together, rolls it back on a throw, and joins a nested one', async () => {
    const store = createKyselyVaultStore({ db });
    await store.transaction!(async (tx) => {
      await tx.write('a', '1');
      await tx.transaction!(async (inner) => inner.write('b', '2'));
    });
    await expect(
      store.transaction!(async (tx) => {
        await tx.write('a', 'changed');
        await tx.delete('b');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await store.read('a')).toBe('1');
    expect(await store.read('b')).toBe('2');
  });

  it('backs a vault whose rotation is all-or-nothing in SQLite', async () => {
    const base = createKyselyVaultStore({ db });
    const oldKey = generateVaultKey();
    const newKey = generateVaultKey();
    const secrets = new Map(Array.from({ length: 5 }, (_, i) => [`entry-${i}`, newSecret()] as const));
    const vault = createVault({ key: oldKey, store: base });
    for (const [id, secret] of secrets) await vault.set(id, secret);

    let writes = 0;
    const crashing: VaultStore = {
      ...base,
      transaction: (fn) =>
        base.transaction!((tx) =>
          fn({
            ...tx,
            async write(id, sealed) {
              if (++writes > 3) throw new Error('simulated crash');
              await tx.write(id, sealed);
            },
          }),
        ),
    };
    await expect(createVault({ key: oldKey, store: crashing }).rotate(newKey)).rejects.toThrow(
      'simulated crash',
    );
    for (const [id, secret] of secrets) {
      const sealed = (await base.read(id))!;
      expect(parseSealed(sealed)?.keyId).toBe(oldKey.id);
      expect(openSealed([oldKey], id, sealed)).toBe(secret);
    }

    expect(await vault.rotate(newKey)).toEqual({ rotated: 5, alreadyCurrent: 0 });
    for (const [id, secret] of secrets) expect(openSealed([newKey], id, (await base.read(id))!)).toBe(secret);
  });
});
