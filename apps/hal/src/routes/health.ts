import { Hono } from 'hono';
import { sql } from 'kysely';
import { HAL_VERSION } from '../config.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../http/env.js';

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
  deps: AppDeps,
  startedAt: number = deps.startedAt ?? deps.clock.now(),
): Promise<HealthReport> {
  let db: 'ok' | 'error' = 'ok';
  try {
    await sql`SELECT 1`.execute(deps.db);
  } catch (error) {
    db = 'error';
    deps.logger.warn({ err: error }, 'health: database check failed');
  }
  let jobs: unknown = { status: 'idle' };
  if (deps.jobs !== undefined) {
    try {
      jobs = await deps.jobs.status();
    } catch (error) {
      jobs = { status: 'error' };
      deps.logger.warn({ err: error }, 'health: job runner status failed');
    }
  }
  const uptimeS = Math.max(0, Math.floor((deps.clock.now() - startedAt) / 1000));
  return { version: HAL_VERSION, uptimeS, db, jobs };
}

/** `GET /api/health` (no auth): `{version, uptimeS, db: 'ok'|'error', jobs}`. */
export function createHealthRoutes(deps: AppDeps): Hono<AppEnv> {
  const startedAt = deps.startedAt ?? deps.clock.now();
  const routes = new Hono<AppEnv>();
  routes.get('/api/health', async (c) => {
    const report = await readHealth(deps, startedAt);
    return c.json(report, report.db === 'ok' ? 200 : 503);
  });
  return routes;
}
