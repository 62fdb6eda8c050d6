import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createQueryCache } from '../../platform/db/compiled-queries.js';
import { isPostgres } from '../../platform/db/database-dialect.js';
import type { Database } from '../../platform/db/schema.js';
import type { Operator } from '../../platform/http/env.js';
import { sha256Hex } from '../../platform/platform-hash.js';

/** A session dies after 12 hours without a request. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** A session dies 7 days after login, however active. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/** `last_seen_at` is written at most once a minute, so reads do not each cost a write. */
const TOUCH_INTERVAL_MS = 60 * 1000;

/** A live session as the middleware sees it. */
export interface ActiveSession {
  /** The row key (SHA-256 of the cookie token). */
  id: string;
  operator: Operator;
  csrfToken: string;
  /** Epoch ms until which `requireRecent` passes (0 when never). */
  recentAuthUntil: number;
  /** Absolute expiry, epoch ms. */
  expiresAt: number;
}

/** A freshly issued session: `token` goes into the cookie and nowhere else. */
export interface IssuedSession extends ActiveSession {
  token: string;
}

/** Settings of {@link createSessionStore}. */
export interface SessionStoreSettings {
  db: Kysely<Database>;
  clock: { now(): number };
  random?: (bytes: number) => Buffer;
  /** Length of the `requireRecent` window opened by login and re-auth, in seconds. */
  reauthWindowS: number;
  /** Compile the session queries once per shape (default true; see `createQueryCache`). */
  compiledQueries?: boolean;
}

/** Server-side sessions. Only a SHA-256 of the cookie token is stored. */
export interface SessionStore {
  /** Starts a session after a successful login (opens the requireRecent window). */
  open(operator: Operator): Promise<IssuedSession>;
  /** Looks up a cookie token; null when unknown, idle-expired or past its absolute expiry. */
  resolve(token: string): Promise<ActiveSession | null>;
  /** Re-authentication: replaces the session by one with a new id (the old token stops working) and a fresh window. */
  reauthenticate(sessionId: string): Promise<IssuedSession | null>;
  /** Ends a session server-side. */
  close(sessionId: string): Promise<void>;
}

/** The row key for a cookie token. */
export function hashSessionToken(token: string): string {
  return sha256Hex(token);
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Creates the session store over the `sessions` table. */
export function createSessionStore(settings: SessionStoreSettings): SessionStore {
  const { db, clock } = settings;
  const random = settings.random ?? randomBytes;
  const windowMs = settings.reauthWindowS * 1000;
  // On PostgreSQL the compiled shapes may run as named prepared statements (the pool decides: `openPostgresDatabase`).
  const queries = createQueryCache({ reuse: settings.compiledQueries ?? true, prepared: isPostgres(db) });

  async function insert(
    operator: Operator,
    csrfToken: string,
    createdAt: string,
    expiresAt: number,
    now: number,
  ): Promise<IssuedSession> {
    const token = random(32).toString('base64url');
    const id = hashSessionToken(token);
    const recentAuthUntil = now + windowMs;
    await db
      .insertInto('sessions')
      .values({
        id,
        operator_id: operator.id,
        csrf_token: csrfToken,
        created_at: createdAt,
        last_seen_at: iso(now),
        expires_at: iso(expiresAt),
        recent_auth_until: iso(recentAuthUntil),
      })
      .execute();
    return { id, token, operator, csrfToken, recentAuthUntil, expiresAt };
  }

  return {
    async open(operator) {
      const now = clock.now();
      return insert(operator, random(32).toString('base64url'), iso(now), now + SESSION_ABSOLUTE_MS, now);
    },

    async resolve(token) {
      if (typeof token !== 'string' || token.length < 16 || token.length > 256) return null;
      const id = hashSessionToken(token);
      // Every request resolves its session: this query is compiled once.
      const [row] = await queries.rows(
        db,
        'session by id',
        (sessionId) =>
          db
            .selectFrom('sessions')
            .innerJoin('operators', 'operators.id', 'sessions.operator_id')
            .select([
              'sessions.id',
              'sessions.csrf_token',
              'sessions.last_seen_at',
              'sessions.expires_at',
              'sessions.recent_auth_until',
              'operators.id as operator_id',
              'operators.username',
            ])
            .where('sessions.id', '=', sessionId),
        [id],
      );
      if (row === undefined) return null;
      const now = clock.now();
      const lastSeen = Date.parse(row.last_seen_at);
      const expiresAt = Date.parse(row.expires_at);
      if (now >= expiresAt || now >= lastSeen + SESSION_IDLE_MS) {
        await db.deleteFrom('sessions').where('id', '=', id).execute();
        return null;
      }
      if (now - lastSeen >= TOUCH_INTERVAL_MS) {
        await db
          .updateTable('sessions')
          .set({ last_seen_at: iso(now) })
          .where('id', '=', id)
          .execute();
      }
      return {
        id,
        operator: { id: row.operator_id, username: row.username },
        csrfToken: row.csrf_token,
        recentAuthUntil: row.recent_auth_until === null ? 0 : Date.parse(row.recent_auth_until),
        expiresAt,
      };
    },

    async reauthenticate(sessionId) {
      // Taking the old row out is the one atomic step: of two re-auths racing on one session (two tabs, two
      // instances), only the one whose DELETE returns the row goes on, so one session replaces it, never two.
      // No transaction spans the awaits: on SQLite a second connection would wait on its lock while holding the
      // only thread. Should the insert fail, the session is gone and the operator signs in again (fails closed).
      const taken = await db
        .deleteFrom('sessions')
        .where('id', '=', sessionId)
        .returning(['operator_id', 'csrf_token', 'created_at', 'expires_at'])
        .executeTakeFirst();
      if (taken === undefined) return null;
      const operator = await db
        .selectFrom('operators')
        .select(['id', 'username'])
        .where('id', '=', taken.operator_id)
        .executeTakeFirst();
      if (operator === undefined) return null;
      // The CSRF token stays: it is a per-login secret the open console pages already hold, while
      // the cookie token is what fixation attacks plant, so that is what changes.
      return insert(operator, taken.csrf_token, taken.created_at, Date.parse(taken.expires_at), clock.now());
    },

    async close(sessionId) {
      await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
    },
  };
}
