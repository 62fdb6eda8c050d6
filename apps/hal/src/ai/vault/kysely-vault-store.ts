import type { VaultStore } from '@hal-ai/vault';
import type { Kysely } from 'kysely';
import { type Clock, systemClock } from '../../domain/core/clock.js';
import type { VaultTables } from '../../platform/db/tables/vault.js';

/** Settings of {@link createKyselyVaultStore}. */
export interface KyselyVaultStoreSettings {
  /** The HAL database (or a transaction of it). */
  // biome-ignore lint/suspicious/noExplicitAny: any schema that has the vault table; kysely types Kysely<T> invariantly.
  db: Kysely<any>;
  /** Time source for `updated_at`. */
  clock?: Clock;
}

/**
 * The vault's store in the HAL database (`vault_entries`), with transactions so a key rotation
 * commits all entries together. Portable SQL only (an upsert by primary key), so a PostgreSQL
 * dialect serves it unchanged.
 *
 * @example
 * const vault = createVault({ key, store: createKyselyVaultStore({ db }) });
 */
export function createKyselyVaultStore(settings: KyselyVaultStoreSettings): VaultStore {
  const db = settings.db as Kysely<VaultTables>;
  const clock = settings.clock ?? systemClock;
  const store: VaultStore = {
    async read(id) {
      const row = await db
        .selectFrom('vault_entries')
        .select('sealed')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.sealed;
    },
    async write(id, sealed) {
      const updatedAt = new Date(clock.now()).toISOString();
      await db
        .insertInto('vault_entries')
        .values({ id, sealed, updated_at: updatedAt })
        .onConflict((conflict) => conflict.column('id').doUpdateSet({ sealed, updated_at: updatedAt }))
        .execute();
    },
    async delete(id) {
      await db.deleteFrom('vault_entries').where('id', '=', id).execute();
    },
    async list() {
      const rows = await db.selectFrom('vault_entries').select('id').orderBy('id').execute();
      return rows.map((row) => row.id);
    },
    async transaction(fn) {
      // Already inside one: join it (SQLite has no nested BEGIN).
      if (db.isTransaction) return fn(store);
      return db.transaction().execute((trx) => fn(createKyselyVaultStore({ db: trx, clock })));
    },
  };
  return store;
}
