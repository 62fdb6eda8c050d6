// Over 600 lines for now: the job queue, its runner (claims, heartbeats, steps, cancellation) and the job functions
// share the row mappers and the audited insert; the runner (createJobRunner) is the next part to move to its own file.
import { HalError } from '@hal-ai/spec';
import { type Selectable, sql } from 'kysely';
import { isPostgres } from '../../platform/db/database-dialect.js';
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

function toJob(row: Selectable<JobsTable>): Job {
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

function errorInfo(error: unknown): { code: string; message: string } {
  if (HalError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

/** Settings of the runner. */
export interface JobRunnerOptions {
  handlers: Record<string, JobHandler>;
  /** Jobs running at once (default 2). */
  concurrency?: number;
  /** How often the queue is polled besides wake-ups (default 1000 ms). */
  pollMs?: number;
  /** Called after a job reaches a final state (or pauses). */
  onSettled?: (job: Job) => void;
  /** This process among the instances sharing the database (default: alone, no instance id). */
  instance?: JobRunnerInstance;
}

/** This process among several on one database, as the job runner needs it. */
export interface JobRunnerInstance {
  /** Written on every job this runner claims. */
  id: string;
  /** Instances that still heartbeat: their running jobs are theirs, not leftovers. */
  liveIds(): Promise<Set<string>>;
}

/** The runner's state for `/api/health`. */
export interface JobRunnerStatus {
  status: 'running' | 'stopped';
  running: number;
  queued: number;
  concurrency: number;
}

/**
 * The persisted job queue's runner. Jobs are claimed atomically (`queued → running`), run step by step with
 * their logs in `job_steps`, and honour cancel/stop requests between steps. Nothing lives only in memory:
 * after a crash `start()` marks jobs left `running` as failed (`interrupted`).
 */
export function createJobRunner(ctx: CoreContext, options: JobRunnerOptions) {
  const { db } = ctx;
  const postgres = isPostgres(db);
  let concurrency = options.concurrency ?? 2;
  const pollMs = options.pollMs ?? 1000;
  const active = new Map<string, Promise<void>>();
  let running = false;
  // Set by stop(): a job still blocked afterwards must not write to a database that may be closed.
  let abandoned = false;
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let again = false;

  async function markInterrupted(): Promise<number> {
    const now = ctx.nowIso();
    // Jobs of an instance that still heartbeats are its own business (several instances on one database).
    const live = options.instance ? await options.instance.liveIds() : new Set<string>();
    return db.transaction().execute(async (trx) => {
      const stale = (
        await trx.selectFrom('jobs').selectAll().where('state', '=', 'running').execute()
      ).filter((row) => row.instance_id === null || !live.has(row.instance_id));
      for (const row of stale) {
        const error = { code: 'interrupted', message: 'HAL stopped while this job was running' };
        await trx
          .updateTable('jobs')
          .set({ state: 'failed', error: JSON.stringify(error), control: null, finished_at: now })
          .where('id', '=', row.id)
          .execute();
        await trx
          .updateTable('job_steps')
          .set({
            state: 'failed',
            finished_at: now,
            log: sql`log || ${'interrupted: HAL stopped during this step\n'}`,
          })
          .where('job_id', '=', row.id)
          .where('state', '=', 'running')
          .execute();
        await ctx.audit.append(
          {
            actor: 'system',
            action: 'job.interrupted',
            target: `job:${row.id}`,
            details: { type: row.type, error },
          },
          trx,
        );
      }
      return stale.length;
    });
  }

  async function claim(): Promise<Selectable<JobsTable> | undefined> {
    return db.transaction().execute(async (trx) => {
      const oldest = trx
        .selectFrom('jobs')
        .selectAll()
        .where('state', '=', 'queued')
        .orderBy('id', 'asc')
        .limit(1);
      // PostgreSQL: runners of several instances take different jobs at once instead of queueing on one row lock
      // (SQLite has one writer, so the compare-and-set below is all it needs).
      const next = await (postgres ? oldest.forUpdate().skipLocked() : oldest).executeTakeFirst();
      if (!next) return undefined;
      const claimed = await trx
        .updateTable('jobs')
        .set({
          state: 'running',
          attempts: next.attempts + 1,
          started_at: ctx.nowIso(),
          finished_at: null,
          instance_id: options.instance?.id ?? null,
        })
        .where('id', '=', next.id)
        .where('state', '=', 'queued')
        .returningAll()
        .executeTakeFirst();
      if (claimed) {
        await ctx.audit.append(
          {
            actor: 'system',
            action: 'job.running',
            target: `job:${claimed.id}`,
            details: { type: claimed.type, target: claimed.target, attempt: claimed.attempts },
          },
          trx,
        );
      }
      return claimed;
    });
  }

  async function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = (async () => {
      do {
        again = false;
        while (running && active.size < concurrency) {
          const row = await claim();
          if (!row) break;
          const job = toJob(row);
          const done = runJob(job)
            .catch((error: unknown) => {
              if (!abandoned) ctx.logger.error({ err: error, jobId: job.id }, 'job runner failure');
            })
            .finally(() => {
              active.delete(job.id);
              if (running) void tick();
            });
          active.set(job.id, done);
        }
      } while (again && running);
    })().finally(() => {
      ticking = null;
    });
    return ticking;
  }

  async function finish(
    job: Job,
    state: 'succeeded' | 'failed' | 'cancelled' | 'paused',
    extra: { error?: { code: string; message: string }; result?: Record<string, unknown> } = {},
  ): Promise<void> {
    if (abandoned) return;
    const settled = await db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('jobs')
        .set({
          state,
          control: null,
          error: extra.error ? JSON.stringify(extra.error) : null,
          result: extra.result ? JSON.stringify(extra.result) : null,
          finished_at: state === 'paused' ? null : ctx.nowIso(),
        })
        .where('id', '=', job.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await ctx.audit.append(
        {
          actor: 'system',
          action: `job.${state}`,
          target: `job:${job.id}`,
          details: { type: job.type, target: job.target, error: extra.error ?? null },
        },
        trx,
      );
      return toJob(row);
    });
    options.onSettled?.(settled);
  }

  async function runJob(job: Job): Promise<void> {
    const handler = options.handlers[job.type];
    if (!handler) {
      await finish(job, 'failed', {
        error: { code: 'validation_failed', message: `Unknown job type ${job.type}` },
      });
      return;
    }
    let steps = await db
      .selectFrom('job_steps')
      .selectAll()
      .where('job_id', '=', job.id)
      .orderBy('seq')
      .execute();
    if (steps.length === 0) {
      let names: string[];
      try {
        names = await handler.plan(job);
      } catch (error) {
        await finish(job, 'failed', { error: errorInfo(error) });
        return;
      }
      if (abandoned) return;
      if (names.length > 0) {
        await db
          .insertInto('job_steps')
          .values(
            names.map((name, index) => ({
              job_id: job.id,
              seq: index + 1,
              name,
              state: 'pending' as const,
              log: '',
              started_at: null,
              finished_at: null,
            })),
          )
          .execute();
      }
      steps = await db
        .selectFrom('job_steps')
        .selectAll()
        .where('job_id', '=', job.id)
        .orderBy('seq')
        .execute();
    }
    const state: Record<string, unknown> = { ...(job.result ?? {}) };
    for (const step of steps) {
      if (step.state === 'succeeded' || step.state === 'skipped') continue;
      if (abandoned) return;
      const control = await db
        .selectFrom('jobs')
        .select('control')
        .where('id', '=', job.id)
        .executeTakeFirst();
      if (control?.control === 'cancel') {
        await finish(job, 'cancelled', { result: state });
        return;
      }
      if (control?.control === 'stop') {
        await finish(job, 'paused', { result: state });
        return;
      }
      await db
        .updateTable('job_steps')
        .set({ state: 'running', started_at: ctx.nowIso(), finished_at: null })
        .where('job_id', '=', job.id)
        .where('seq', '=', step.seq)
        .execute();
      // A crash from here on leaves the job and this step `running`: the next start marks both interrupted.
      await ctx.pausePoints?.reach('job-step-running');
      // Log lines arrive synchronously; a promise chain keeps them in order without blocking the step.
      let pending: Promise<unknown> = Promise.resolve();
      const log = (line: string) => {
        if (abandoned) return;
        pending = pending.then(() =>
          db
            .updateTable('job_steps')
            .set({ log: sql`log || ${`${line}\n`}` })
            .where('job_id', '=', job.id)
            .where('seq', '=', step.seq)
            .execute()
            .catch(() => undefined),
        );
      };
      let failure: unknown = null;
      try {
        await handler.run(step.name, { job, log, state });
      } catch (error) {
        failure = error;
        log(`error: ${errorInfo(error).code}: ${errorInfo(error).message}`);
      }
      await pending;
      if (abandoned) return;
      await db
        .updateTable('job_steps')
        .set({ state: failure ? 'failed' : 'succeeded', finished_at: ctx.nowIso() })
        .where('job_id', '=', job.id)
        .where('seq', '=', step.seq)
        .execute();
      if (failure) {
        await finish(job, 'failed', { error: errorInfo(failure), result: state });
        return;
      }
      await db
        .updateTable('jobs')
        .set({ result: JSON.stringify(state) })
        .where('id', '=', job.id)
        .execute();
    }
    await finish(job, 'succeeded', { result: state });
  }

  return {
    /** Marks crash leftovers `interrupted`, then starts taking jobs. */
    async start(): Promise<{ interrupted: number }> {
      const interrupted = await markInterrupted();
      running = true;
      abandoned = false;
      timer = setInterval(() => void tick(), pollMs);
      timer.unref();
      void tick();
      return { interrupted };
    },

    /**
     * Stops taking jobs and waits up to `graceMs` (default 5 s) for running ones to reach a step boundary.
     * A job still blocked after that is abandoned: it stays `running` in the database, and the next
     * `start()` marks it `interrupted` — exactly as after a crash.
     */
    async stop(graceMs = 5000): Promise<void> {
      running = false;
      if (timer) clearInterval(timer);
      timer = null;
      const all = Promise.allSettled([...active.values()]);
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise((resolve) => (timeout = setTimeout(resolve, graceMs)))]);
      clearTimeout(timeout);
      abandoned = true;
      await ticking?.catch(() => undefined);
    },

    /** Looks at the queue now (called after every enqueue). */
    wake(): void {
      if (running) void tick();
    },

    /** Changes how many jobs run at once (settings apply). */
    setConcurrency(value: number): void {
      concurrency = Math.max(1, Math.floor(value));
      if (running) void tick();
    },

    /** Runner state for health. */
    async status(): Promise<JobRunnerStatus> {
      const queued = await db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', '=', 'queued')
        .executeTakeFirst();
      return {
        status: running ? 'running' : 'stopped',
        running: active.size,
        queued: Number(queued?.n ?? 0),
        concurrency,
      };
    },

    /** Resolves when no job is running and none is queued (tests, graceful shutdown). */
    async idle(timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { queued } = await this.status();
        if (active.size === 0 && queued === 0) return;
        if (Date.now() > deadline) throw new Error('job runner did not become idle');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** The runner's type. */
export type JobRunner = ReturnType<typeof createJobRunner>;

const CANCELLABLE = ['queued', 'paused', 'running'];
const RETRYABLE = ['failed', 'cancelled'];

/** Reading and controlling jobs. */
export function createJobFunctions(ctx: CoreContext, runner: () => JobRunner | null) {
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
