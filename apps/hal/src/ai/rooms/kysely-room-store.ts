// Over 600 lines on purpose: one RoomStore over SQL — rooms, messages, turns and actions share its row mappers and
// its room-counter transactions; splitting the tables apart would split those transactions across files.
import { randomUUID } from 'node:crypto';
import type { ActionRecord, RoomStore, TurnRecord } from '@hal-ai/rooms';
import { type ErrorInfo, HalError, type Room, type RoomMessage } from '@hal-ai/spec';
import { type Kysely, type Selectable, sql, type Transaction, type Updateable } from 'kysely';
import type { Clock } from '../../domain/core/clock.js';
import { createQueryCache } from '../../platform/db/compiled-queries.js';
import { isPostgres } from '../../platform/db/database-dialect.js';
import type { Database } from '../../platform/db/schema.js';
import type {
  AiActionsTable,
  AiMessagesTable,
  AiRoomsTable,
  AiTurnsTable,
} from '../../platform/db/tables/ai-rooms.js';

/** The unified room's fixed title (SPEC §3). */
export const UNIFIED_ROOM_TITLE = '통합';

type Executor = Kysely<Database> | Transaction<Database>;

const toJson = (value: unknown): string => JSON.stringify(value ?? null);
const fromJson = <T>(text: string | null): T => (text === null ? (null as T) : (JSON.parse(text) as T));

function toRoom(row: Selectable<AiRoomsTable>): Room {
  return {
    id: row.id,
    kind: row.kind,
    title: row.kind === 'unified' ? UNIFIED_ROOM_TITLE : (row.custom_title ?? row.connection_name ?? row.id),
    fixed: row.kind === 'unified',
    connectionId: row.connection_id,
    position: row.position,
    tokenBudget: row.token_budget,
    tokensUsed: Number(row.tokens_used),
  };
}

function toMessage(row: Selectable<AiMessagesTable>): RoomMessage {
  return {
    id: row.id,
    roomId: row.room_id,
    seq: row.seq,
    role: row.role,
    connectionId: row.connection_id,
    model: row.model,
    content: fromJson(row.content_json),
    status: row.status,
    error: fromJson<ErrorInfo | null>(row.error_json),
    relayDepth: row.relay_depth === 1 ? 1 : 0,
    relayedFrom: row.relayed_from,
    usage: fromJson(row.usage_json),
    createdAt: row.created_at,
  };
}

function toTurn(row: Selectable<AiTurnsTable>): TurnRecord {
  return {
    id: row.id,
    roomId: row.room_id,
    connectionId: row.connection_id,
    status: row.status,
    relayDepth: row.relay_depth === 1 ? 1 : 0,
    relayedFrom: row.relayed_from,
    triggerMessageId: row.trigger_message_id,
    error: fromJson<ErrorInfo | null>(row.error_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toAction(row: Selectable<AiActionsTable>): ActionRecord {
  return {
    id: row.id,
    roomId: row.room_id,
    connectionId: row.connection_id,
    source: row.source,
    tool: row.tool,
    args: fromJson(row.args_json),
    risk: row.risk,
    identifiers: fromJson<string[]>(row.identifiers_json),
    status: row.status,
    createdAt: row.created_at,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    result: fromJson(row.result_json),
    error: fromJson<ErrorInfo | null>(row.error_json),
    argsCanonical: row.args_canonical,
    argsHash: row.args_hash,
    expiresAt: row.expires_at,
    toolCallId: row.tool_call_id,
    turnId: row.turn_id,
    clientName: row.client_name,
    reason: row.reason,
    changeSeq: row.change_seq,
    tainted: row.tainted === 1,
  };
}

/** Options of {@link createKyselyRoomStore}. */
export interface KyselyRoomStoreOptions {
  /** Room id generator (default `room_<uuid>`). */
  newRoomId?: () => string;
  /**
   * The HAL process writing through this store (`hal_instances.id`): new turns and messages, and actions it starts
   * executing, name it, so another instance's start-up leaves them alone while this one heartbeats. Default null.
   */
  instanceId?: string | null;
  /** Compile the hot queries once per shape (default true; see `createQueryCache`). */
  compiledQueries?: boolean;
  /**
   * PostgreSQL: append a message (its `seq` bump and its row) in one statement instead of a four-round-trip
   * transaction (default true; the host's `HAL_DATABASE_SINGLE_STATEMENT_APPEND`). Ignored on SQLite, whose
   * statements are calls in the process and which has no data-modifying CTEs.
   */
  singleStatementAppend?: boolean;
}

/**
 * The app's {@link RoomStore} over kysely, on SQLite or PostgreSQL (only portable SQL plus `RETURNING`). It behaves exactly like `createMemoryRoomStore` — the same contract
 * suite runs against both. `seq` comes from a per-room counter bumped by one `UPDATE … RETURNING`
 * inside the transaction that inserts the row; an action transition is ONE compare-and-set
 * `UPDATE … WHERE id = ? AND status IN (…)`, so two approvals can never both win. The queries a
 * model turn makes (room, message append and update, history, turn) are compiled once
 * (`createQueryCache`): building them with kysely on every call cost more than running them. Nothing of the
 * rooms is kept in memory: every read sees what any process on the same database wrote (`apps/hal/bench/README.md`
 * says why the history cache went).
 *
 * @example
 * const store = createKyselyRoomStore(deps.db, deps.clock);
 * const unified = await store.ensureUnifiedRoom();
 */
export function createKyselyRoomStore(
  db: Kysely<Database>,
  clock: Clock,
  options: KyselyRoomStoreOptions = {},
): RoomStore {
  const newRoomId = options.newRoomId ?? (() => `room_${randomUUID()}`);
  const instanceId = options.instanceId ?? null;
  const nowIso = () => new Date(clock.now()).toISOString();

  const postgres = isPostgres(db);
  // On PostgreSQL the compiled shapes may run as named prepared statements (the pool decides: `openPostgresDatabase`).
  const queries = createQueryCache({ reuse: options.compiledQueries ?? true, prepared: postgres });
  const singleStatementAppend = (options.singleStatementAppend ?? true) && postgres;
  // A placeholder stands for a value of any column type while a shape is compiled.
  const value = <T>(placeholder: string) => placeholder as unknown as T;

  const nextSeq = async (trx: Executor, roomId: string): Promise<number> => {
    const [row] = await queries.rows(
      trx,
      'next seq',
      (id) =>
        db
          .updateTable('ai_rooms')
          .set({ last_seq: sql`last_seq + 1` })
          .where('id', '=', id)
          .returning('last_seq'),
      [roomId],
    );
    if (!row) throw new HalError('not_found', `No room ${roomId}`);
    return row.last_seq;
  };
  const roomRow = async (trx: Executor, roomId: string) =>
    (
      await queries.rows(
        trx,
        'room by id',
        (id) => db.selectFrom('ai_rooms').selectAll().where('id', '=', id),
        [roomId],
      )
    )[0];
  const requireRoom = async (trx: Executor, roomId: string) => {
    const row = await roomRow(trx, roomId);
    if (!row) throw new HalError('not_found', `No room ${roomId}`);
    return row;
  };
  const requireMessage = async (trx: Executor, messageId: string) => {
    const row = await trx
      .selectFrom('ai_messages')
      .selectAll()
      .where('id', '=', messageId)
      .executeTakeFirst();
    if (!row) throw new HalError('not_found', `No message ${messageId}`);
    return toMessage(row);
  };
  /** A new room goes after every existing one. */
  const nextPosition = async (trx: Executor) => {
    const max = await trx
      .selectFrom('ai_rooms')
      .select((eb) => eb.fn.max('position').as('position'))
      .executeTakeFirst();
    return Math.max(0, Number(max?.position ?? 0)) + 1;
  };
  const isUniqueViolation = (error: unknown) =>
    error instanceof Error && /UNIQUE constraint|PRIMARY KEY/i.test(error.message);

  const store: RoomStore = {
    async listRooms() {
      const rows = await db
        .selectFrom('ai_rooms')
        .selectAll()
        .orderBy('position')
        .orderBy('created_at')
        .execute();
      return rows.map(toRoom);
    },
    async getRoom(roomId) {
      const row = await roomRow(db, roomId);
      return row ? toRoom(row) : undefined;
    },
    async ensureUnifiedRoom() {
      // ON CONFLICT DO NOTHING + re-read: two processes creating it at once end with one room.
      await db
        .insertInto('ai_rooms')
        .values({
          id: newRoomId(),
          kind: 'unified',
          connection_id: null,
          connection_name: null,
          custom_title: null,
          position: 0,
          last_seq: 0,
          created_at: nowIso(),
          token_budget: null,
        })
        .onConflict((conflict) => conflict.doNothing())
        .execute();
      const row = await db
        .selectFrom('ai_rooms')
        .selectAll()
        .where('kind', '=', 'unified')
        .executeTakeFirstOrThrow();
      return toRoom(row);
    },
    async ensureDirectRoom(connection) {
      return db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('ai_rooms')
          .selectAll()
          .where('connection_id', '=', connection.id)
          .executeTakeFirst();
        if (existing) {
          if (existing.connection_name !== connection.name) {
            await trx
              .updateTable('ai_rooms')
              .set({ connection_name: connection.name })
              .where('id', '=', existing.id)
              .execute();
          }
          return toRoom({ ...existing, connection_name: connection.name });
        }
        const row = {
          id: newRoomId(),
          kind: 'direct' as const,
          connection_id: connection.id,
          connection_name: connection.name,
          custom_title: null,
          position: await nextPosition(trx),
          last_seq: 0,
          created_at: nowIso(),
          token_budget: null,
          tokens_used: 0,
        };
        await trx.insertInto('ai_rooms').values(row).execute();
        return toRoom(row);
      });
    },
    async createDebateRoom(input) {
      return db.transaction().execute(async (trx) => {
        const row = {
          id: newRoomId(),
          kind: 'debate' as const,
          connection_id: null,
          connection_name: null,
          // A debate room's title is its own (there is no connection name to fall back to).
          custom_title: input.title,
          position: await nextPosition(trx),
          last_seq: 0,
          created_at: nowIso(),
          token_budget: input.tokenBudget,
          tokens_used: 0,
        };
        await trx.insertInto('ai_rooms').values(row).execute();
        return toRoom(row);
      });
    },
    async addRoomUsage(roomId, tokens) {
      const [row] = await db
        .updateTable('ai_rooms')
        .set({ tokens_used: sql`tokens_used + ${Math.max(0, Math.floor(tokens))}` })
        .where('id', '=', roomId)
        .returningAll()
        .execute();
      if (!row) throw new HalError('not_found', `No room ${roomId}`);
      return toRoom(row);
    },
    async setRoomBudget(roomId, tokenBudget) {
      const [row] = await db
        .updateTable('ai_rooms')
        .set({ token_budget: tokenBudget })
        .where('id', '=', roomId)
        .returningAll()
        .execute();
      if (!row) throw new HalError('not_found', `No room ${roomId}`);
      return toRoom(row);
    },
    async findDirectRoom(connectionId) {
      const row = await db
        .selectFrom('ai_rooms')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
      return row ? toRoom(row) : undefined;
    },
    async renameRoom(roomId, title) {
      const row = await requireRoom(db, roomId);
      if (row.kind === 'unified') throw new HalError('room_fixed', 'The unified room cannot be renamed');
      const trimmed = title?.trim() ?? '';
      // A debate room has no connection name to fall back to: a blank title keeps its title.
      const custom = trimmed.length > 0 ? trimmed : row.kind === 'debate' ? row.custom_title : null;
      await db.updateTable('ai_rooms').set({ custom_title: custom }).where('id', '=', roomId).execute();
      return toRoom({ ...row, custom_title: custom });
    },
    async deleteDirectRoom(connectionId) {
      // Messages, turns and actions go with the room (ON DELETE CASCADE).
      await db.deleteFrom('ai_rooms').where('connection_id', '=', connectionId).execute();
    },

    async appendMessage(input) {
      const fields = {
        id: input.id,
        room_id: input.roomId,
        role: input.role,
        connection_id: input.connectionId,
        model: input.model,
        content_json: toJson(input.content),
        status: input.status,
        error_json: input.error ? toJson(input.error) : null,
        relay_depth: input.relayDepth,
        relayed_from: input.relayedFrom,
        usage_json: input.usage ? toJson(input.usage) : null,
        created_at: input.createdAt,
        instance_id: instanceId,
      };
      const columns = Object.keys(fields) as Array<keyof typeof fields>;
      const values = columns.map((column) => fields[column]);
      try {
        if (singleStatementAppend) {
          // PostgreSQL: the counter bump and the insert in ONE statement (a data-modifying CTE), one round trip
          // instead of four (BEGIN, UPDATE, INSERT, COMMIT). Atomic like the transaction: a failed insert undoes
          // the bump, and the room row's lock orders concurrent appends. A missing room inserts nothing.
          const [inserted] = await queries.rows(
            db,
            'insert message with next seq',
            (...placeholders) =>
              db
                .with('next_seq', (query) =>
                  query
                    .updateTable('ai_rooms')
                    .set({ last_seq: sql`last_seq + 1` })
                    .where('id', '=', placeholders[columns.indexOf('room_id')] as string)
                    .returning('last_seq'),
                )
                .insertInto('ai_messages')
                .columns([...columns, 'seq'])
                .expression(
                  (expression) =>
                    expression
                      .selectFrom('next_seq')
                      .select([
                        ...columns.map((column, index) => expression.val(placeholders[index]).as(column)),
                        'next_seq.last_seq',
                      ]) as never,
                )
                .returning('seq'),
            values,
          );
          if (!inserted) throw new HalError('not_found', `No room ${input.roomId}`);
          return toMessage({ ...fields, seq: inserted.seq });
        }
        const row = await db.transaction().execute(async (trx) => {
          const seq = await nextSeq(trx, input.roomId);
          await queries.rows(
            trx,
            'insert message',
            (seq, ...placeholders) =>
              db
                .insertInto('ai_messages')
                .values(
                  Object.fromEntries([
                    ['seq', seq],
                    ...columns.map((column, index) => [column, placeholders[index]]),
                  ]) as never,
                ),
            [seq, ...values],
          );
          return { ...fields, seq };
        });
        return toMessage(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new HalError('conflict', `Message ${input.id} exists`);
        throw error;
      }
    },
    async updateMessage(messageId, patch) {
      const set: Updateable<AiMessagesTable> = {};
      if (patch.status !== undefined) set.status = patch.status;
      if (patch.content !== undefined) set.content_json = toJson(patch.content);
      if (patch.usage !== undefined) set.usage_json = patch.usage ? toJson(patch.usage) : null;
      if (patch.error !== undefined) set.error_json = patch.error ? toJson(patch.error) : null;
      if (patch.model !== undefined) set.model = patch.model;
      const columns = Object.keys(set) as Array<keyof typeof set>;
      if (columns.length === 0) return requireMessage(db, messageId);
      // One shape per set of changed columns (a turn uses two or three).
      const [row] = await queries.rows(
        db,
        `update message ${columns.join(',')}`,
        (id, ...values) =>
          db
            .updateTable('ai_messages')
            .set(Object.fromEntries(columns.map((column, index) => [column, values[index]])))
            .where('id', '=', id)
            .returningAll(),
        [messageId, ...columns.map((column) => set[column])],
      );
      if (!row) throw new HalError('not_found', `No message ${messageId}`);
      return toMessage(row);
    },
    async getMessage(messageId) {
      const row = await db
        .selectFrom('ai_messages')
        .selectAll()
        .where('id', '=', messageId)
        .executeTakeFirst();
      return row ? toMessage(row) : undefined;
    },
    async listMessages(roomId, options = {}) {
      const afterSeq = options.afterSeq ?? 0;
      if (options.limit !== undefined) {
        const limit = Math.max(0, options.limit);
        // The LAST `limit` messages: newest first, then back into seq order. (Every model call reads this.)
        const rows = await queries.rows(
          db,
          'last messages',
          (room, after, limit) =>
            db
              .selectFrom('ai_messages')
              .selectAll()
              .where('room_id', '=', room)
              .where('seq', '>', value<number>(after))
              .orderBy('seq', 'desc')
              .limit(value<number>(limit)),
          [roomId, afterSeq, limit],
        );
        return rows.reverse().map(toMessage);
      }
      const rows = await db
        .selectFrom('ai_messages')
        .selectAll()
        .where('room_id', '=', roomId)
        .where('seq', '>', afterSeq)
        .orderBy('seq', 'asc')
        .execute();
      return rows.map(toMessage);
    },
    async listMessagesByStatus(status) {
      const rows = await db
        .selectFrom('ai_messages')
        .selectAll()
        .where('status', '=', status)
        .orderBy('room_id')
        .orderBy('seq')
        .execute();
      return rows.map(toMessage);
    },
    async clearMessages(roomId) {
      // The room's counter stays where it is, so client cursors stay valid.
      await db.deleteFrom('ai_messages').where('room_id', '=', roomId).execute();
    },

    async createTurn(turn) {
      await queries.rows(
        db,
        'insert turn',
        (id, room, connection, status, depth, relayedFrom, trigger, error, createdAt, updatedAt, instance) =>
          db.insertInto('ai_turns').values({
            instance_id: instance,
            id,
            room_id: room,
            connection_id: connection,
            status: value(status),
            relay_depth: value(depth),
            relayed_from: relayedFrom,
            trigger_message_id: trigger,
            error_json: error,
            created_at: createdAt,
            updated_at: updatedAt,
          }),
        [
          turn.id,
          turn.roomId,
          turn.connectionId,
          turn.status,
          turn.relayDepth,
          turn.relayedFrom,
          turn.triggerMessageId,
          turn.error ? toJson(turn.error) : null,
          turn.createdAt,
          turn.updatedAt,
          instanceId,
        ],
      );
      return { ...turn, error: turn.error ? structuredClone(turn.error) : null };
    },
    async updateTurn(turnId, patch) {
      const withError = patch.error !== undefined;
      const [row] = await queries.rows(
        db,
        withError ? 'update turn with error' : 'update turn',
        (id, status, updatedAt, error) =>
          db
            .updateTable('ai_turns')
            .set({
              status: value(status),
              updated_at: updatedAt,
              ...(withError ? { error_json: error } : {}),
            })
            .where('id', '=', id)
            .returningAll(),
        [
          turnId,
          patch.status,
          patch.updatedAt,
          ...(withError ? [patch.error ? toJson(patch.error) : null] : []),
        ],
      );
      if (!row) throw new HalError('not_found', `No turn ${turnId}`);
      return toTurn(row);
    },
    async getTurn(turnId) {
      const row = await db.selectFrom('ai_turns').selectAll().where('id', '=', turnId).executeTakeFirst();
      return row ? toTurn(row) : undefined;
    },
    async listTurns(filter) {
      let query = db.selectFrom('ai_turns').selectAll().where('status', '=', filter.status);
      if (filter.roomId !== undefined) query = query.where('room_id', '=', filter.roomId);
      return (await query.orderBy('created_at').execute()).map(toTurn);
    },

    async createAction(input) {
      try {
        return await db.transaction().execute(async (trx) => {
          const changeSeq = await nextSeq(trx, input.roomId);
          const row = await trx
            .insertInto('ai_actions')
            .values({
              id: input.id,
              room_id: input.roomId,
              connection_id: input.connectionId,
              source: input.source,
              tool: input.tool,
              args_json: toJson(input.args),
              risk: input.risk,
              identifiers_json: toJson(input.identifiers),
              status: input.status,
              created_at: input.createdAt,
              decided_by: input.decidedBy,
              decided_at: input.decidedAt,
              result_json: toJson(input.result),
              error_json: input.error ? toJson(input.error) : null,
              args_canonical: input.argsCanonical,
              args_hash: input.argsHash,
              expires_at: input.expiresAt,
              tool_call_id: input.toolCallId,
              turn_id: input.turnId,
              client_name: input.clientName,
              reason: input.reason,
              change_seq: changeSeq,
              tainted: input.tainted ? 1 : 0,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          return toAction(row);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new HalError('conflict', `Action ${input.id} exists`);
        throw error;
      }
    },
    async getAction(actionId) {
      const row = await db.selectFrom('ai_actions').selectAll().where('id', '=', actionId).executeTakeFirst();
      return row ? toAction(row) : undefined;
    },
    async transitionAction(actionId, from, to, patch = {}) {
      if (from.length === 0) return null;
      return db.transaction().execute(async (trx) => {
        // The compare-and-set is this one statement: a second approval waits for the first's row lock (PostgreSQL)
        // or the write lock (SQLite), then finds the status moved on. Only the winner moves the room counter, and
        // it moves it BEFORE taking `change_seq` from it: on PostgreSQL another transaction may bump the counter
        // meanwhile, and reading it first could hand out a seq that is already taken.
        const moved = await trx
          .updateTable('ai_actions')
          .set({
            status: to,
            ...(to === 'executing' ? { instance_id: instanceId } : {}),
            ...(patch.decidedBy !== undefined ? { decided_by: patch.decidedBy } : {}),
            ...(patch.decidedAt !== undefined ? { decided_at: patch.decidedAt } : {}),
            ...(patch.result !== undefined ? { result_json: toJson(patch.result) } : {}),
            ...(patch.error !== undefined ? { error_json: patch.error ? toJson(patch.error) : null } : {}),
            ...(patch.reason !== undefined ? { reason: patch.reason } : {}),
          })
          .where('id', '=', actionId)
          .where('status', 'in', [...from])
          .returning('room_id')
          .executeTakeFirst();
        if (!moved) return null;
        const changeSeq = await nextSeq(trx, moved.room_id);
        const row = await trx
          .updateTable('ai_actions')
          .set({ change_seq: changeSeq })
          .where('id', '=', actionId)
          .returningAll()
          .executeTakeFirstOrThrow();
        return toAction(row);
      });
    },
    async listActions(roomId, options = {}) {
      const rows = await db
        .selectFrom('ai_actions')
        .selectAll()
        .where('room_id', '=', roomId)
        .where('change_seq', '>', options.afterSeq ?? 0)
        .orderBy('change_seq')
        .execute();
      return rows.map(toAction);
    },
    async listActionsByStatus(status) {
      const rows = await db
        .selectFrom('ai_actions')
        .selectAll()
        .where('status', '=', status)
        .orderBy('created_at')
        .execute();
      return rows.map(toAction);
    },
    async cancelPendingActions(roomId, at) {
      return db.transaction().execute(async (trx) => {
        const pending = await trx
          .selectFrom('ai_actions')
          .select('id')
          .where('room_id', '=', roomId)
          .where('status', '=', 'proposed')
          .orderBy('change_seq')
          .execute();
        const cancelled: ActionRecord[] = [];
        for (const { id } of pending) {
          const changeSeq = await nextSeq(trx, roomId);
          const row = await trx
            .updateTable('ai_actions')
            .set({ status: 'cancelled', decided_at: at, change_seq: changeSeq })
            .where('id', '=', id)
            .where('status', '=', 'proposed')
            .returningAll()
            .executeTakeFirst();
          if (row) cancelled.push(toAction(row));
        }
        return cancelled;
      });
    },
  };
  return store;
}

/**
 * The rooms' counters (`last_seq`) in one query, for the watcher of the shared database
 * (`createSqliteRoomEventHub`); rooms that no longer exist are left out.
 */
export function readRoomSequences(
  db: Kysely<Database>,
): (roomIds: readonly string[]) => Promise<Map<string, number>> {
  return async (roomIds) => {
    if (roomIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('ai_rooms')
      .select(['id', 'last_seq'])
      .where('id', 'in', [...roomIds])
      .execute();
    return new Map(rows.map((row) => [row.id, row.last_seq]));
  };
}
