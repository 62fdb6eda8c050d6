import { randomBytes } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import type { Kysely, Selectable, Transaction } from 'kysely';
import * as v from 'valibot';
import type { Database } from '../../platform/db/schema.js';
import type { PausePoints } from '../../platform/pause-points.js';
import type { AuditActor, AuditLog } from '../audit/types.js';
import type { AgentDirectory } from './agent.js';
import type { Clock } from './clock.js';

/** The minimal logger the core needs (pino satisfies it). */
export interface CoreLogger {
  info(object: unknown, message?: string): void;
  warn(object: unknown, message?: string): void;
  error(object: unknown, message?: string): void;
}

/** A logger that drops everything (tests, tools). */
export const silentLogger: CoreLogger = { info() {}, warn() {}, error() {} };

/** What every core area receives. */
export interface CoreContext {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditLog;
  dataDir: string;
  agents: AgentDirectory;
  logger: CoreLogger;
  /** Makes a new, time-sortable id with the given prefix. */
  newId(prefix: string): string;
  /** Current time as ISO 8601. */
  nowIso(): string;
  /** Random bytes (tokens). */
  random(bytes: number): Buffer;
  /** Where a `kill -9` test may hold the core still (none unless `HAL_TEST_PAUSE_DIR` is set). */
  pausePoints?: PausePoints;
}

/** Who acts: the same actor strings the audit log takes. */
export type Actor = AuditActor;

/** A database handle or a transaction on it. */
export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Ids sort by creation time (base36 milliseconds, then a per-process counter), so every list can page by
 * `id` alone — keyset pagination without a second column — and newest-first is `id desc`.
 */
export function createIdGenerator(
  clock: Clock,
  random: (bytes: number) => Buffer = randomBytes,
): (prefix: string) => string {
  let counter = 0;
  return (prefix) => {
    counter = (counter + 1) % 36 ** 4;
    const time = Math.max(0, Math.floor(clock.now())).toString(36).padStart(10, '0');
    return `${prefix}_${time}${counter.toString(36).padStart(4, '0')}${random(4).toString('hex')}`;
  };
}

/** Input validation lives with the platform (the routes use it too); the core's areas import it from here. */
export { parseInput } from '../../platform/input-schema.js';

/** `404 not_found` for a missing record. */
export function notFound(what: string, id: string): HalError {
  return new HalError('not_found', `No ${what} with id ${id}`, { details: { id } });
}

/** The core tables whose records are addressed by a string `id`. */
export type RecordTable = 'servers' | 'jobs' | 'releases' | 'incidents';

/** Loads one record by `id`, or throws `not_found` naming it as `what` (e.g. `release`). */
export async function loadRecord<T extends RecordTable>(
  db: Executor,
  table: T,
  what: string,
  id: string,
): Promise<Selectable<Database[T]>> {
  // Kysely cannot narrow a query over a union of table names; every RecordTable has the same `id` column.
  const row = await db
    .selectFrom(table as RecordTable)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(what, id);
  return row as Selectable<Database[T]>;
}

/**
 * Appends the audit entry of one record's change inside the caller's transaction: `before` (null when the
 * record is created) and `after` as clients see them, after any extra `details`.
 */
export async function auditChange(
  audit: AuditLog,
  trx: Executor,
  change: {
    actor: Actor;
    action: string;
    target: string;
    before: unknown;
    after: unknown;
    details?: Record<string, unknown>;
  },
): Promise<void> {
  const { actor, action, target, before, after, details } = change;
  await audit.append({ actor, action, target, details: { ...details, before, after } }, trx);
}

/** Parses a JSON column, tolerating null. */
export function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** The `{limit, cursor}` every list takes (SPEC §14: default 50, at most 200). */
export const PageSchema = {
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200))),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(200))),
};

/** Normalised page options. */
export function pageOf(input: { limit?: number | undefined; cursor?: string | undefined }): {
  limit: number;
  cursor: string | null;
} {
  return { limit: input.limit ?? 50, cursor: input.cursor ?? null };
}

/** Cuts one extra fetched row into `nextCursor`: lists fetch `limit + 1` rows to know whether more exist. */
export function pageResult<T extends { id: string }>(
  rows: T[],
  limit: number,
): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: items[items.length - 1]?.id ?? null };
}
