/**
 * The debates' {@link DebateStore} over SQL (SQLite or PostgreSQL through kysely): the debate row, its append-only
 * round log and the working document's versions. A round is committed in one transaction with its document version
 * and the debate's new counters, so a crash never leaves a round without its document or the other way round.
 */
import type { DebatePatch, DebateRecord, DebateRoundRecord, DebateStore } from '@hal-ai/rooms';
import { HalError } from '@hal-ai/spec';
import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { AiDebatesTable } from '../../platform/db/tables/ai-debates.js';

type Executor = Kysely<Database> | Transaction<Database>;

const toJson = (value: unknown): string => JSON.stringify(value ?? null);
const fromJson = <T>(text: string | null): T => (text === null ? (null as T) : (JSON.parse(text) as T));

function toRecord(row: Selectable<AiDebatesTable>): DebateRecord {
  return {
    id: row.id,
    roomId: row.room_id,
    topic: row.topic,
    slug: row.slug,
    status: row.status,
    moderatorId: row.moderator_id,
    debaterIds: fromJson<string[]>(row.debater_ids_json),
    round: Number(row.round),
    maxRounds: Number(row.max_rounds),
    tokenBudget: Number(row.token_budget),
    agreementStreak: Number(row.agreement_streak),
    lastVerdict: fromJson(row.last_verdict_json),
    question: row.question,
    reason: row.reason,
    document: { version: Number(row.document_version), text: row.document_text },
    conclusion: row.conclusion,
    summaryEvery: Number(row.summary_every),
    compactedSummary: row.compacted_summary,
    compactedThrough: Number(row.compacted_through),
    direction: row.direction,
    notes: fromJson(row.notes_json) ?? [],
    pending: fromJson(row.pending_json),
    operator: fromJson(row.operator_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns a patch changes (only the fields it names). */
function toColumns(patch: DebatePatch): Updateable<AiDebatesTable> {
  const columns: Updateable<AiDebatesTable> = {};
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.round !== undefined) columns.round = patch.round;
  if (patch.maxRounds !== undefined) columns.max_rounds = patch.maxRounds;
  if (patch.tokenBudget !== undefined) columns.token_budget = patch.tokenBudget;
  if (patch.agreementStreak !== undefined) columns.agreement_streak = patch.agreementStreak;
  if (patch.lastVerdict !== undefined) columns.last_verdict_json = toJson(patch.lastVerdict);
  if (patch.question !== undefined) columns.question = patch.question;
  if (patch.reason !== undefined) columns.reason = patch.reason;
  if (patch.document !== undefined) {
    columns.document_version = patch.document.version;
    columns.document_text = patch.document.text;
  }
  if (patch.conclusion !== undefined) columns.conclusion = patch.conclusion;
  if (patch.summaryEvery !== undefined) columns.summary_every = patch.summaryEvery;
  if (patch.compactedSummary !== undefined) columns.compacted_summary = patch.compactedSummary;
  if (patch.compactedThrough !== undefined) columns.compacted_through = patch.compactedThrough;
  if (patch.direction !== undefined) columns.direction = patch.direction;
  if (patch.notes !== undefined) columns.notes_json = toJson(patch.notes);
  if (patch.pending !== undefined)
    columns.pending_json = patch.pending === null ? null : toJson(patch.pending);
  if (patch.operator !== undefined) columns.operator_json = toJson(patch.operator);
  if (patch.updatedAt !== undefined) columns.updated_at = patch.updatedAt;
  return columns;
}

/** Creates the SQL debate store. */
export function createKyselyDebateStore(db: Kysely<Database>): DebateStore {
  const read = async (executor: Executor, debateId: string) => {
    const row = await executor
      .selectFrom('ai_debates')
      .selectAll()
      .where('id', '=', debateId)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  };
  const update = async (executor: Executor, debateId: string, patch: DebatePatch) => {
    const columns = toColumns(patch);
    if (Object.keys(columns).length > 0) {
      await executor.updateTable('ai_debates').set(columns).where('id', '=', debateId).execute();
    }
    const record = await read(executor, debateId);
    if (!record) throw new HalError('not_found', `No debate ${debateId}`);
    return record;
  };

  return {
    async createDebate(record) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('ai_debates')
          .values({
            id: record.id,
            room_id: record.roomId,
            topic: record.topic,
            slug: record.slug,
            status: record.status,
            moderator_id: record.moderatorId,
            debater_ids_json: toJson(record.debaterIds),
            round: record.round,
            max_rounds: record.maxRounds,
            token_budget: record.tokenBudget,
            agreement_streak: record.agreementStreak,
            last_verdict_json: record.lastVerdict ? toJson(record.lastVerdict) : null,
            question: record.question,
            reason: record.reason,
            document_version: record.document.version,
            document_text: record.document.text,
            conclusion: record.conclusion,
            summary_every: record.summaryEvery,
            compacted_summary: record.compactedSummary,
            compacted_through: record.compactedThrough,
            direction: record.direction,
            notes_json: toJson(record.notes),
            pending_json: record.pending ? toJson(record.pending) : null,
            operator_json: record.operator ? toJson(record.operator) : null,
            created_at: record.createdAt,
            updated_at: record.updatedAt,
          })
          .execute();
        await trx
          .insertInto('ai_debate_documents')
          .values({
            debate_id: record.id,
            version: record.document.version,
            text: record.document.text,
            round: 0,
          })
          .execute();
      });
      return (await read(db, record.id)) as DebateRecord;
    },
    getDebate: (debateId) => read(db, debateId),
    async findDebateByRoom(roomId) {
      const row = await db
        .selectFrom('ai_debates')
        .selectAll()
        .where('room_id', '=', roomId)
        .executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
    async listDebates() {
      const rows = await db
        .selectFrom('ai_debates')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toRecord);
    },
    async listDebatesByStatus(statuses) {
      if (statuses.length === 0) return [];
      const rows = await db
        .selectFrom('ai_debates')
        .selectAll()
        .where('status', 'in', [...statuses])
        .execute();
      return rows.map(toRecord);
    },
    updateDebate: (debateId, patch) => update(db, debateId, patch),
    async commitRound(debateId, round: DebateRoundRecord, document, patch) {
      return db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('ai_debate_rounds')
          .select('n')
          .where('debate_id', '=', debateId)
          .where('n', '=', round.n)
          .executeTakeFirst();
        if (existing)
          throw new HalError('conflict', `Round ${round.n} of debate ${debateId} is already stored`);
        await trx
          .insertInto('ai_debate_rounds')
          .values({
            debate_id: debateId,
            n: round.n,
            speaker_id: round.speakerId,
            input: round.input,
            reply: round.reply,
            verdict_json: toJson(round.verdict),
            document_version: round.documentVersion,
            created_at: round.createdAt,
          })
          .execute();
        await trx
          .insertInto('ai_debate_documents')
          .values({
            debate_id: debateId,
            version: document.version,
            text: document.text,
            round: document.round,
          })
          .execute();
        return update(trx, debateId, patch);
      });
    },
    async listRounds(debateId) {
      const rows = await db
        .selectFrom('ai_debate_rounds')
        .selectAll()
        .where('debate_id', '=', debateId)
        .orderBy('n')
        .execute();
      return rows.map((row) => ({
        n: Number(row.n),
        speakerId: row.speaker_id,
        input: row.input,
        reply: row.reply,
        verdict: fromJson(row.verdict_json),
        documentVersion: Number(row.document_version),
        createdAt: row.created_at,
      }));
    },
    async listDocumentVersions(debateId) {
      const rows = await db
        .selectFrom('ai_debate_documents')
        .selectAll()
        .where('debate_id', '=', debateId)
        .orderBy('version')
        .execute();
      return rows.map((row) => ({ version: Number(row.version), text: row.text, round: Number(row.round) }));
    },
  };
}
