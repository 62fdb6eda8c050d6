import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { HAL_VERSION } from '../../platform/config.js';
import type { Database } from '../../platform/db/schema.js';
import type { AppEnv } from '../../platform/http/env.js';
import { readSessionToken, type SessionDeps, sessionStoreFor } from '../../platform/http/session.js';
import type { Logger } from '../../platform/logger.js';
import type { InstanceJobsReport, InstanceRegistry } from '../../platform/platform-instances.js';
import type { Clock } from '../core/clock.js';

/** What the health report reads: everything comes from the database, so every process reports the same HAL. */
export interface HealthDeps {
  db: Kysely<Database>;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  /** The instances on the database (their heartbeats); this process is among them only while it serves. */
  instances: Pick<InstanceRegistry, 'serving'>;
}

/** One serving `hal serve` instance, from its last heartbeat. */
export interface HealthInstance {
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  /** When it last heartbeat (ISO; at most one heartbeat interval, 5 s, old while it lives). */
  heartbeatAt: string;
  /** Seconds since it started, by the answering process's clock. */
  uptimeS: number;
  /** Whether this is the process answering. */
  self: boolean;
  /** Its job runner at its last heartbeat. */
  jobs: InstanceJobsReport | null;
}

/** The most recently started job. */
export interface HealthLastRun {
  id: string;
  type: string;
  state: string;
  startedAt: string;
  finishedAt: string | null;
}

/** The job runner of all serving instances together, from the database. */
export interface HealthJobs {
  /** `running` when at least one serving instance's runner runs. */
  status: 'running' | 'stopped';
  /** Jobs in state `running`, whichever instance claimed them. */
  running: number;
  /** Jobs waiting in the queue. */
  queued: number;
  /** How many jobs the serving runners take at once, summed. */
  concurrency: number;
  lastRun: HealthLastRun | null;
}

/** What `GET /api/health` answers (and the `hal_health` tool returns, from any instance and from `hal mcp`). */
export interface HealthReport {
  version: string;
  /**
   * How long HAL has been serving: the answering instance's own uptime when it serves, else (`hal mcp`, an instance
   * not started yet) that of the longest-serving instance; 0 when none serves.
   */
  uptimeS: number;
  db: 'ok' | 'error';
  /** `null` when the database could not be read. */
  jobs: HealthJobs | null;
  /** The `hal serve` instances that still heartbeat, oldest first (`hal mcp` never serves, so never listed). */
  instances: HealthInstance[];
}

/**
 * What `GET /api/health` answers without a signed-in operator (load balancers, uptime checks): SPEC §13's
 * `{version, uptimeS, db, jobs}` and how many instances serve — never their host names, pids or ids, which tell an
 * anonymous caller about the machines behind HAL.
 */
export interface PublicHealthReport {
  version: string;
  uptimeS: number;
  db: 'ok' | 'error';
  jobs: HealthJobs | null;
  /** How many `hal serve` instances still heartbeat. */
  instanceCount: number;
}

/** The anonymous face of a {@link HealthReport}: the per-instance list becomes its length. */
export function toPublicHealth(report: HealthReport): PublicHealthReport {
  return {
    version: report.version,
    uptimeS: report.uptimeS,
    db: report.db,
    jobs: report.jobs,
    instanceCount: report.instances.length,
  };
}

async function readJobs(db: Kysely<Database>, instances: HealthInstance[]): Promise<HealthJobs> {
  const [counts, last] = await Promise.all([
    db
      .selectFrom('jobs')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', 'in', ['queued', 'running'])
      .groupBy('state')
      .execute(),
    db
      .selectFrom('jobs')
      .select(['id', 'type', 'state', 'started_at', 'finished_at'])
      .where('started_at', 'is not', null)
      .orderBy('started_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
  ]);
  const count = (state: string) => Number(counts.find((row) => row.state === state)?.n ?? 0);
  const runners = instances.flatMap((instance) =>
    instance.jobs?.status === 'running' ? [instance.jobs] : [],
  );
  return {
    status: runners.length > 0 ? 'running' : 'stopped',
    running: count('running'),
    queued: count('queued'),
    concurrency: runners.reduce((sum, runner) => sum + runner.concurrency, 0),
    lastRun: last
      ? {
          id: last.id,
          type: last.type,
          state: last.state,
          startedAt: last.started_at as string,
          finishedAt: last.finished_at,
        }
      : null,
  };
}

/**
 * Reads HAL's health from the database: a `SELECT 1`, the serving instances (their heartbeats) and the jobs, so
 * the answer is the same from any instance and from `hal mcp`. Shared by the route and the AI tool.
 */
export async function readHealth(deps: HealthDeps): Promise<HealthReport> {
  try {
    await sql`SELECT 1`.execute(deps.db);
  } catch (error) {
    deps.logger.warn({ err: error }, 'health: database check failed');
    return { version: HAL_VERSION, uptimeS: 0, db: 'error', jobs: null, instances: [] };
  }
  const now = deps.clock.now();
  const seconds = (since: string) => Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  let instances: HealthInstance[] = [];
  let jobs: HealthJobs | null = null;
  try {
    instances = (await deps.instances.serving())
      .filter((instance) => instance.kind === 'serve')
      .map((instance) => ({
        id: instance.id,
        host: instance.host,
        pid: instance.pid,
        version: instance.version,
        startedAt: instance.startedAt,
        heartbeatAt: instance.heartbeatAt,
        uptimeS: seconds(instance.startedAt),
        self: instance.self,
        jobs: instance.jobs,
      }));
    jobs = await readJobs(deps.db, instances);
  } catch (error) {
    deps.logger.warn({ err: error }, 'health: reading the instances and jobs failed');
  }
  const self = instances.find((instance) => instance.self);
  const uptimeS = self?.uptimeS ?? Math.max(0, ...instances.map((instance) => instance.uptimeS));
  return { version: HAL_VERSION, uptimeS, db: 'ok', jobs, instances };
}

/**
 * `GET /api/health`, which needs no session: `{version, uptimeS, db: 'ok'|'error', jobs, instanceCount}`
 * ({@link PublicHealthReport}); with a signed-in operator's session cookie the whole {@link HealthReport}, whose
 * `instances` name each instance's host and pid. A missing, expired or forged cookie is no error here: the caller
 * gets the public report. `503` when the database cannot be read.
 */
export function createHealthRoutes(deps: HealthDeps & SessionDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const sessions = sessionStoreFor(deps);
  routes.get('/api/health', async (c) => {
    const report = await readHealth(deps);
    const status = report.db === 'ok' ? 200 : 503;
    const token = readSessionToken(c);
    // The session is only read when the database answers: a failed check must still answer 503 at once.
    const signedIn =
      token !== undefined && report.db === 'ok' && (await sessions.resolve(token).catch(() => null)) !== null;
    return c.json(signedIn ? report : toPublicHealth(report), status);
  });
  return routes;
}
