import type { ConnectionOAuthOverrides } from '@hal-ai/providers';
import { type Connection, type ErrorInfo, HalError, REASONING_LEVELS } from '@hal-ai/spec';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../domain/core/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { AiConnectionsTable, AiOauthStatesTable } from '../../platform/db/tables/ai-connections.js';

/** One `ai_connections` row: never a secret (those live in the vault). */
export type ConnectionRow = Selectable<AiConnectionsTable>;

/** A pending OAuth login as stored (the state only as its hash). */
export type PendingOAuthLogin = Selectable<AiOauthStatesTable>;

/** The columns a change may write (the store stamps `updated_at`). */
export type ConnectionRowChanges = Partial<Omit<ConnectionRow, 'id' | 'created_at' | 'updated_at'>>;

/** Settings of {@link createConnectionStore}. */
export interface ConnectionStoreSettings {
  db: Kysely<Database>;
  clock: Clock;
  /**
   * Called (and awaited) after every row write, so anything built from rows (the model cache, the views of
   * every instance) can drop it.
   */
  onWrite?: () => void | Promise<void>;
}

/**
 * The connections' two tables, `ai_connections` and `ai_oauth_states`, over kysely. It holds no
 * rule beyond the data's own (a unique name, single-use login states); the façade decides what to write.
 */
export interface ConnectionStore {
  find(id: string): Promise<ConnectionRow | undefined>;
  /** The row, or `not_found`. */
  require(id: string): Promise<ConnectionRow>;
  /** Every row, in connection order. */
  list(): Promise<ConnectionRow[]>;
  insert(row: ConnectionRow): Promise<void>;
  /** Writes `changes` (and `updated_at`) and returns the row as stored now. */
  patch(id: string, changes: ConnectionRowChanges): Promise<ConnectionRow>;
  /** Deletes the row and its pending logins. */
  remove(id: string): Promise<void>;
  /** `conflict` when another connection has this name (case-insensitive). */
  assertNameFree(name: string, exceptId?: string): Promise<void>;
  /** The position after the last connection. */
  nextPosition(): Promise<number>;
  /** Stores a pending login. */
  insertLogin(login: PendingOAuthLogin): Promise<void>;
  /** Removes and returns the pending login of a state hash (so it is used once even when callbacks race). */
  takeLogin(stateHash: string): Promise<PendingOAuthLogin | undefined>;
  /** Removes expired pending logins and returns which they were (their verifiers go too). */
  removeExpiredLogins(): Promise<Array<{ connectionId: string; stateHash: string }>>;
}

/** Parses a JSON column; a damaged value reads as `fallback` rather than breaking every list. */
export function parseColumn<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** A row's identity column. */
export function rowIdentity(row: ConnectionRow): Connection['identity'] {
  const identity = parseColumn<Partial<Connection['identity']>>(row.identity, {});
  return {
    role: identity.role ?? '',
    traits: identity.traits ?? '',
    instructions: identity.instructions ?? '',
  };
}

/** A row's tool selection column. */
export function rowTools(row: ConnectionRow): Connection['tools'] {
  const tools = parseColumn<{ preset?: string; enabled?: string[] }>(row.tools, {});
  return { preset: (tools.preset ?? 'all') as Connection['tools']['preset'], enabled: tools.enabled ?? [] };
}

/** A row's reasoning level; anything unknown reads as `off` (no reasoning parameter is sent). */
export function rowReasoning(row: ConnectionRow): Connection['reasoning'] {
  return (REASONING_LEVELS as readonly string[]).includes(row.reasoning)
    ? (row.reasoning as Connection['reasoning'])
    : 'off';
}

/** A row's model list from its last check, or `null` before one. */
export function rowModels(row: ConnectionRow): string[] | null {
  return parseColumn<string[] | null>(row.models, null);
}

/** A row's non-secret OAuth client settings. */
export function rowOAuth(row: ConnectionRow): ConnectionOAuthOverrides {
  return parseColumn<ConnectionOAuthOverrides>(row.oauth, {});
}

/** A row's last error. */
export function rowLastError(row: ConnectionRow): ErrorInfo | null {
  return parseColumn<ErrorInfo | null>(row.last_error, null);
}

/**
 * An error as a connection stores it (`last_error`): a HAL error keeps its code and its message with
 * every known secret redacted; anything else says only that the provider could not be reached.
 */
export function storedError(error: unknown, redact: <T>(value: T) => T): ErrorInfo {
  if (HalError.isInstance(error)) return { code: error.code, message: redact(error.message) };
  return { code: 'provider_unavailable', message: 'The provider could not be reached' };
}

/**
 * Creates the connection store.
 *
 * @example
 * const store = createConnectionStore({ db, clock });
 * const row = await store.require(connectionId);
 */
export function createConnectionStore(settings: ConnectionStoreSettings): ConnectionStore {
  const { db, clock } = settings;
  const onWrite = settings.onWrite ?? (() => {});
  const find = (id: string) =>
    db.selectFrom('ai_connections').selectAll().where('id', '=', id).executeTakeFirst();
  const require = async (id: string) => {
    const row = await find(id);
    if (!row) throw new HalError('not_found', `No connection with id ${id}`, { details: { id } });
    return row;
  };
  return {
    find,
    require,
    list: () => db.selectFrom('ai_connections').selectAll().orderBy('position').orderBy('id').execute(),
    async insert(row) {
      await db.insertInto('ai_connections').values(row).execute();
      await onWrite();
    },
    async patch(id, changes) {
      await db
        .updateTable('ai_connections')
        .set({ ...changes, updated_at: new Date(clock.now()).toISOString() })
        .where('id', '=', id)
        .execute();
      await onWrite();
      return require(id);
    },
    async remove(id) {
      await db.deleteFrom('ai_oauth_states').where('connection_id', '=', id).execute();
      await db.deleteFrom('ai_connections').where('id', '=', id).execute();
      await onWrite();
    },
    async assertNameFree(name, exceptId) {
      const rows = await db.selectFrom('ai_connections').select(['id', 'name']).execute();
      const clash = rows.find((row) => row.id !== exceptId && row.name.toLowerCase() === name.toLowerCase());
      if (clash) {
        throw new HalError('conflict', `A connection named "${name}" already exists`, {
          details: { field: 'name' },
        });
      }
    },
    async nextPosition() {
      const last = await db
        .selectFrom('ai_connections')
        .select((eb) => eb.fn.max('position').as('position'))
        .executeTakeFirst();
      return Number(last?.position ?? 0) + 1;
    },
    async insertLogin(login) {
      await db.insertInto('ai_oauth_states').values(login).execute();
    },
    takeLogin: (stateHash) =>
      db.deleteFrom('ai_oauth_states').where('state_hash', '=', stateHash).returningAll().executeTakeFirst(),
    async removeExpiredLogins() {
      const expired = await db
        .deleteFrom('ai_oauth_states')
        .where('expires_at', '<=', clock.now())
        .returning(['connection_id', 'state_hash'])
        .execute();
      return expired.map((entry) => ({ connectionId: entry.connection_id, stateHash: entry.state_hash }));
    },
  };
}
