// The job runner (SPEC §1): claims queued jobs atomically, runs their steps with logs in `job_steps`, honours
// cancel/stop between steps, and marks what a stopped or crashed instance left running as interrupted. The queue, its
// types and the job functions are `core-jobs.ts`.
import { HalError } from '@hal-ai/spec';
import { type Selectable, sql } from 'kysely';
import { isPostgres } from '../../platform/db/database-dialect.js';
import type { JobsTable } from '../../platform/db/tables/core.js';
import { type Job, type JobHandler, toJob } from './core-jobs.js';
import type { CoreContext } from './core-support.js';

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
