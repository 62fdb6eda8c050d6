import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { HAL_VERSION } from '../../platform/config.js';
import type { Database } from '../../platform/db/schema.js';
import type { AppEnv } from '../../platform/http/env.js';
import type { Logger } from '../../platform/logger.js';
import type { Clock } from '../core/clock.js';

/** Something that reports the job runner's state for `/api/health` (the core does). */
export interface JobsStatusSource {
  status(): unknown;
}

/** What the health report reads. */
export interface HealthDeps {
  db: Kysely<Database>;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  jobs: JobsStatusSource;
  /** When HAL started (epoch ms, by `clock`). */
  startedAt: number;
}

/** What `GET /api/health` answers (and the `hal_health` tool returns). */
export interface HealthReport {
  version: string;
  uptimeS: number;
  db: 'ok' | 'error';
  jobs: unknown;
}

/**
 * Reads HAL's health: version, uptime by the clock since `startedAt`, a `SELECT 1` on the database and
 * the job runner's status. Shared by the route and the AI tool so both report the same thing.
 */
export async function readHealth(
  deps: HealthDeps,
  startedAt: number = deps.startedAt,
): Promise<HealthReport> {
  let db: 'ok' | 'error' = 'ok';
  try {
    await sql`SELECT 1`.execute(deps.db);
  } catch (error) {
    db = 'error';
    deps.logger.warn({ err: error }, 'health: database check failed');
  }
  let jobs: unknown;
  try {
    jobs = await deps.jobs.status();
  } catch (error) {
    jobs = { status: 'error' };
    deps.logger.warn({ err: error }, 'health: job runner status failed');
  }
  const uptimeS = Math.max(0, Math.floor((deps.clock.now() - startedAt) / 1000));
  return { version: HAL_VERSION, uptimeS, db, jobs };
}

/** `GET /api/health` (no auth): `{version, uptimeS, db: 'ok'|'error', jobs}`. */
export function createHealthRoutes(deps: HealthDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/health', async (c) => {
    const report = await readHealth(deps);
    return c.json(report, report.db === 'ok' ? 200 : 503);
  });
  return routes;
}
