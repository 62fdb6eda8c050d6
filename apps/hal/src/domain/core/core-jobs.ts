// The persisted job queue: job and step types, the row mappers, the audited insert and the job functions (list, get,
// control). The runner that takes queued jobs and runs their steps is `core-job-runner.ts`.
import { HalError } from '@hal-ai/spec';
import type { Selectable } from 'kysely';
import type { JobStepsTable, JobsTable } from '../../platform/db/tables/core.js';
import { type ArgsOf, JobControlArgs, JobIdArgs, JobsListArgs } from './core-schemas.js';
import {
  type Actor,
  auditChange,
  type CoreContext,
  type Executor,
  loadRecord,
  pageOf,
  pageResult,
  parseInput,
  parseJson,
} from './core-support.js';

/** A job as clients see it. */
export interface Job {
  id: string;
  type: string;
  state: JobsTable['state'];
  target: string | null;
  args: Record<string, unknown>;
  reason: string | null;
  error: { code: string; message: string } | null;
  result: Record<string, unknown> | null;
  /** A pending cooperative request (`cancel` / `stop`) the runner honours at the next step boundary. */
  control: 'cancel' | 'stop' | null;
  attempts: number;
  createdBy: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  parentJobId: string | null;
}

/** One step of a job with its log. */
export interface JobStep {
  seq: number;
  name: string;
  state: JobStepsTable['state'];
  log: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** What a step sees while it runs. */
export interface JobStepContext {
  job: Job;
  /** Appends a line to this step's log. */
  log(line: string): void;
  /** State carried between steps (persisted in the job's `result`, so a resumed job keeps it). */
  state: Record<string, unknown>;
}

/** A job type: the step names it plans and how each step runs. Steps must be safe to re-plan identically. */
export interface JobHandler {
  plan(job: Job): Promise<string[]>;
  run(step: string, context: JobStepContext): Promise<void>;
}

/** A `jobs` row as a {@link Job} (the runner maps the rows it claims the same way). */
export function toJob(row: Selectable<JobsTable>): Job {
  return {
    id: row.id,
    type: row.type,
    state: row.state,
    target: row.target,
    args: parseJson<Record<string, unknown>>(row.args) ?? {},
    reason: row.reason,
    error: parseJson(row.error),
    result: parseJson(row.result),
    control: row.control as Job['control'],
    attempts: row.attempts,
    createdBy: row.created_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    parentJobId: row.parent_job_id,
  };
}

function toStep(row: Selectable<JobStepsTable>): JobStep {
  return {
    seq: row.seq,
    name: row.name,
    state: row.state,
    log: row.log,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** What to enqueue. */
export interface NewJob {
  type: string;
  target: string | null;
  args: Record<string, unknown>;
  reason?: string | null | undefined;
  parentJobId?: string | null;
}

/**
 * Queues a job and its audit entry (`action` on the job's target) in one transaction, then wakes the runner.
 * `prepare` makes the refusals and the changes that go with the job, and names the audit details; the
 * entry's details end with the new job's id.
 */
export async function queueAuditedJob(
  ctx: CoreContext,
  wake: () => void,
  actor: Actor,
  action: string,
  prepare: (trx: Executor) => Promise<{ job: NewJob; details?: Record<string, unknown> }>,
): Promise<{ job: Job }> {
  const job = await ctx.db.transaction().execute(async (trx) => {
    const prepared = await prepare(trx);
    const job = await insertJob(ctx, trx, actor, prepared.job);
    await ctx.audit.append(
      { actor, action, target: job.target, details: { ...prepared.details, jobId: job.id } },
      trx,
    );
    return job;
  });
  wake();
  return { job };
}

/** Inserts a queued job (inside the caller's transaction, next to its audit entry). */
export async function insertJob(ctx: CoreContext, trx: Executor, actor: Actor, job: NewJob): Promise<Job> {
  const row = await trx
    .insertInto('jobs')
    .values({
      id: ctx.newId('job'),
      type: job.type,
      state: 'queued',
      target: job.target,
      args: JSON.stringify(job.args),
      reason: job.reason ?? null,
      error: null,
      result: null,
      control: null,
      attempts: 0,
      created_by: actor,
      created_at: ctx.nowIso(),
      started_at: null,
      finished_at: null,
      parent_job_id: job.parentJobId ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toJob(row);
}

async function loadJob(db: Executor, id: string): Promise<Selectable<JobsTable>> {
  return loadRecord(db, 'jobs', 'job', id);
}

const CANCELLABLE = ['queued', 'paused', 'running'];
const RETRYABLE = ['failed', 'cancelled'];

/** Reading and controlling jobs. */
export function createJobFunctions(ctx: CoreContext, runner: () => { wake(): void } | null) {
  const { db, audit } = ctx;
  return {
    /** Jobs, newest first. */
    async list(input: ArgsOf<typeof JobsListArgs> = {}): Promise<{ jobs: Job[]; nextCursor: string | null }> {
      const args = parseInput(JobsListArgs, input);
      const { limit, cursor } = pageOf(args);
      let query = db
        .selectFrom('jobs')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(limit + 1);
      if (args.state) query = query.where('state', '=', args.state);
      if (args.type) query = query.where('type', '=', args.type);
      if (args.serverId) query = query.where('target', '=', `server:${args.serverId}`);
      if (cursor) query = query.where('id', '<', cursor);
      const { items, nextCursor } = pageResult((await query.execute()).map(toJob), limit);
      return { jobs: items, nextCursor };
    },

    /** One job with its steps and their logs. */
    async get(input: ArgsOf<typeof JobIdArgs>): Promise<{ job: Job & { steps: JobStep[] } }> {
      const { id } = parseInput(JobIdArgs, input);
      const job = toJob(await loadJob(db, id));
      const steps = await db
        .selectFrom('job_steps')
        .selectAll()
        .where('job_id', '=', id)
        .orderBy('seq')
        .execute();
      return { job: { ...job, steps: steps.map(toStep) } };
    },

    /**
     * cancel: queued/paused → cancelled; running → cancelled at the next step boundary.
     * stop: running → paused at the next step boundary; queued → paused. resume: paused → queued (continues
     * after the last finished step). retry: failed/cancelled → a new job linked by `parentJobId`.
     * revert: a succeeded deploy → a rollback job linked by `parentJobId`.
     * Returns the affected job: for retry and revert, the new one.
     */
    async control(actor: Actor, input: ArgsOf<typeof JobControlArgs>): Promise<{ job: Job }> {
      const { id, action, reason } = parseInput(JobControlArgs, input);
      const result = await db.transaction().execute(async (trx) => {
        const beforeRow = await loadJob(trx, id);
        const before = toJob(beforeRow);
        const refuse = (
          code:
            | 'job_not_cancellable'
            | 'job_not_retryable'
            | 'job_not_resumable'
            | 'job_not_stoppable'
            | 'job_not_revertable',
        ) =>
          new HalError(
            code,
            `Job ${id} is ${before.state}${before.control ? ` (${before.control} requested)` : ''}; cannot ${action}`,
            {
              details: { state: before.state },
            },
          );
        let job: Job;
        const update = async (change: Partial<Selectable<JobsTable>>) =>
          toJob(
            await trx
              .updateTable('jobs')
              .set(change)
              .where('id', '=', id)
              .returningAll()
              .executeTakeFirstOrThrow(),
          );
        switch (action) {
          case 'cancel':
            if (!CANCELLABLE.includes(before.state) || before.control === 'cancel')
              throw refuse('job_not_cancellable');
            job =
              before.state === 'running'
                ? await update({ control: 'cancel' })
                : await update({ state: 'cancelled', control: null, finished_at: ctx.nowIso() });
            break;
          case 'stop':
            if (before.state === 'running' && before.control === null)
              job = await update({ control: 'stop' });
            else if (before.state === 'queued') job = await update({ state: 'paused' });
            else throw refuse('job_not_stoppable');
            break;
          case 'resume':
            if (before.state !== 'paused') throw refuse('job_not_resumable');
            job = await update({ state: 'queued', control: null });
            break;
          case 'retry':
            if (!RETRYABLE.includes(before.state)) throw refuse('job_not_retryable');
            job = await insertJob(ctx, trx, actor, {
              type: before.type,
              target: before.target,
              args: before.args,
              reason: reason ?? `retry of ${id}`,
              parentJobId: id,
            });
            break;
          case 'revert':
            if (before.type !== 'deploy' || before.state !== 'succeeded') throw refuse('job_not_revertable');
            job = await insertJob(ctx, trx, actor, {
              type: 'rollback',
              target: before.target,
              args: { module: before.args.module, serverId: before.args.serverId },
              reason: reason ?? `revert of ${id}`,
              parentJobId: id,
            });
            break;
        }
        await auditChange(audit, trx, {
          actor,
          action: `job.${action}`,
          target: `job:${id}`,
          before,
          after: job,
        });
        return job;
      });
      runner()?.wake();
      return { job: result };
    },
  };
}

/** The job functions' type. */
export type JobFunctions = ReturnType<typeof createJobFunctions>;
