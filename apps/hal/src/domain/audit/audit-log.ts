import { canonicalJson } from '@hal-ai/tools';
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { isPostgres } from '../../platform/db/database-dialect.js';
import type { Database } from '../../platform/db/schema.js';
import type { AuditTable } from '../../platform/db/tables/foundation.js';
import { sha256Hex } from '../../platform/platform-hash.js';
import type { AuditEntry, AuditInput, AuditLog } from './types.js';

/** `prev_hash` of the very first entry. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** Settings of {@link createAuditLog}. */
export interface AuditLogSettings {
  db: Kysely<Database>;
  clock: { now(): number };
  /** Applied to `details` before hashing and storing (the vault's redactor strips secrets). */
  redact?: (value: unknown) => unknown;
}

/** The chained hash of one entry: `sha256(prevHash + canonicalJson({at, actor, action, target, details}))`. */
export function computeAuditHash(
  prevHash: string,
  entry: { at: string; actor: string; action: string; target: string | null; details: unknown },
): string {
  const body = canonicalJson({
    at: entry.at,
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    details: entry.details ?? null,
  });
  return sha256Hex(prevHash + body);
}

/** A stored row: the table's own type (`platform/db/tables/foundation.ts`), as kysely reads it. */
type AuditRow = Selectable<AuditTable>;

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    target: row.target,
    details: row.details === null ? null : JSON.parse(row.details),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

function hashedEntry(
  id: number,
  prevHash: string,
  input: AuditInput,
  at: string,
  details: string | null,
): AuditEntry {
  const parsedDetails = details === null ? null : JSON.parse(details);
  const target = input.target ?? null;
  const hash = computeAuditHash(prevHash, {
    at,
    actor: input.actor,
    action: input.action,
    target,
    details: parsedDetails,
  });
  return { id, at, actor: input.actor, action: input.action, target, details: parsedDetails, prevHash, hash };
}

async function appendInSqlite(
  trx: Transaction<Database> | Kysely<Database>,
  input: AuditInput,
  at: string,
  details: string | null,
): Promise<AuditEntry> {
  // Insert first: that takes SQLite's write lock, so no other writer can append between reading
  // the previous hash and storing ours (two appends never share a prev_hash, even across processes).
  const inserted = await trx
    .insertInto('audit')
    .values({
      at,
      actor: input.actor,
      action: input.action,
      target: input.target ?? null,
      details,
      prev_hash: '',
      hash: '',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const previous = await trx
    .selectFrom('audit')
    .select('hash')
    .where('id', '<', inserted.id)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const entry = hashedEntry(inserted.id, previous?.hash ?? AUDIT_GENESIS_HASH, input, at, details);
  await trx
    .updateTable('audit')
    .set({ prev_hash: entry.prevHash, hash: entry.hash })
    .where('id', '=', inserted.id)
    .execute();
  return entry;
}

async function appendInPostgres(
  trx: Transaction<Database> | Kysely<Database>,
  input: AuditInput,
  at: string,
  details: string | null,
): Promise<AuditEntry> {
  // PostgreSQL has no database-wide write lock: locking the one `audit_head` row serialises appends (across
  // instances too) until this transaction ends, and its `last_id` gives the next id with no gap even when an
  // appending transaction rolls back (a sequence would skip the value).
  const head = await sql<{ last_id: number }>`SELECT last_id FROM audit_head WHERE one FOR UPDATE`.execute(
    trx,
  );
  const id = Number(head.rows[0]?.last_id ?? 0) + 1;
  const previous = await trx
    .selectFrom('audit')
    .select('hash')
    .where('id', '<', id)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const entry = hashedEntry(id, previous?.hash ?? AUDIT_GENESIS_HASH, input, at, details);
  await trx
    .insertInto('audit')
    .values({
      id,
      at,
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      details,
      prev_hash: entry.prevHash,
      hash: entry.hash,
    })
    .execute();
  await sql`UPDATE audit_head SET last_id = ${id} WHERE one`.execute(trx);
  return entry;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * Creates the append-only, hash-chained audit log.
 *
 * @example
 * const audit = createAuditLog({ db, clock: systemClock });
 * await audit.append({ actor: `operator:${id}`, action: 'server.approve', target: `server:${serverId}` }, trx);
 */
export function createAuditLog(settings: AuditLogSettings): AuditLog {
  const { db, clock } = settings;
  const redact = settings.redact ?? ((value: unknown) => value);
  const appendIn = isPostgres(db) ? appendInPostgres : appendInSqlite;
  return {
    async append(input, trx) {
      const at = new Date(clock.now()).toISOString();
      const details = input.details === undefined ? null : canonicalJson(redact(input.details));
      const handle = trx ?? db;
      if (handle.isTransaction) return appendIn(handle, input, at, details);
      return handle.transaction().execute((inner) => appendIn(inner, input, at, details));
    },

    async list(options = {}) {
      const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 200);
      let query = db
        .selectFrom('audit')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(limit + 1);
      if (options.cursor !== undefined && options.cursor !== '') {
        const cursor = Number(options.cursor);
        if (Number.isSafeInteger(cursor)) query = query.where('id', '<', cursor);
      }
      if (options.actionPrefix) {
        query = query.where(sql<boolean>`action LIKE ${`${escapeLike(options.actionPrefix)}%`} ESCAPE '\\'`);
      }
      const rows = await query.execute();
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return { entries: page.map(toEntry), nextCursor: rows.length > limit && last ? String(last.id) : null };
    },
  };
}

/** The result of {@link verifyAuditChain}. */
export type AuditVerification =
  | { ok: true; count: number }
  | {
      ok: false;
      brokenAt: number;
      reason: 'prev_hash_mismatch' | 'hash_mismatch' | 'missing_rows' | 'bad_details';
    };

/**
 * Walks the chain from the first entry and recomputes every hash. An altered row fails its own
 * hash; an inserted or deleted row breaks the next row's `prev_hash` or leaves a gap in the ids;
 * rows deleted from the end are caught through the high-water mark of the ids ever written (SQLite's AUTOINCREMENT
 * `sqlite_sequence`; on PostgreSQL the `audit_head` row appends keep).
 */
export async function verifyAuditChain(db: Kysely<Database>): Promise<AuditVerification> {
  let expectedPrev = AUDIT_GENESIS_HASH;
  let lastId = 0;
  let count = 0;
  const pageSize = 500;
  for (;;) {
    const rows = await db
      .selectFrom('audit')
      .selectAll()
      .where('id', '>', lastId)
      .orderBy('id', 'asc')
      .limit(pageSize)
      .execute();
    for (const row of rows) {
      if (row.id !== lastId + 1) return { ok: false, brokenAt: row.id, reason: 'missing_rows' };
      if (row.prev_hash !== expectedPrev)
        return { ok: false, brokenAt: row.id, reason: 'prev_hash_mismatch' };
      let details: unknown;
      try {
        details = row.details === null ? null : JSON.parse(row.details);
      } catch {
        return { ok: false, brokenAt: row.id, reason: 'bad_details' };
      }
      const hash = computeAuditHash(row.prev_hash, { ...row, details });
      if (hash !== row.hash) return { ok: false, brokenAt: row.id, reason: 'hash_mismatch' };
      expectedPrev = row.hash;
      lastId = row.id;
      count += 1;
    }
    if (rows.length < pageSize) break;
  }
  const sequence = isPostgres(db)
    ? await sql<{ seq: number }>`SELECT last_id AS seq FROM audit_head`.execute(db)
    : await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = 'audit'`.execute(db);
  const highWater = Number(sequence.rows[0]?.seq ?? 0);
  if (highWater > lastId) return { ok: false, brokenAt: lastId + 1, reason: 'missing_rows' };
  return { ok: true, count };
}
