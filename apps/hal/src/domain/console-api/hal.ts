import { HalError } from '@hal-ai/spec';
import { type Context, Hono } from 'hono';
import type { HalConfig } from '../../platform/config.js';
import type { AppEnv } from '../../platform/http/env.js';
import { type RequireRecentDeps, requireRecent } from '../../platform/http/require-recent.js';
import type { ThreeStep } from '../../platform/http/three-step.js';
import type { AuditLog } from '../audit/types.js';
import { type HalCore, runningCore } from '../core/hal-core.js';
import { registerOperationRoutes } from './hal-operation-routes.js';

/** What the console API uses: the core, the three steps, the audit log and where uploads go. */
export interface HalRouteDeps extends RequireRecentDeps {
  core: HalCore;
  threeStep: ThreeStep;
  audit: AuditLog;
  config: Pick<HalConfig, 'dataDir' | 'uploadLimitBytes'>;
}

type Ctx = Context<AppEnv>;

/** List options from the query string; numbers stay strings when malformed so validation names them. */
function listQuery(c: Ctx, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['limit', 'cursor', ...keys]) {
    const value = c.req.query(key);
    if (value === undefined || value === '') continue;
    out[key] = key === 'limit' && /^\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}

/**
 * The console API under `/ops/api/hal` (SPEC §13). Reads need a session (the app's middleware); every
 * operation is derived from its one definition (`registerOperationRoutes`): writes add `requireRecent`,
 * high-risk ones add `threeStep`, with the same schema, early refusal, impact and core call as the console
 * form and the AI tool.
 */
export function createHalRoutes(deps: HalRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const write = requireRecent(deps);

  const core = (): HalCore => runningCore(deps);

  // ---- reads -------------------------------------------------------------------------------------
  routes.get('/overview', async (c) => c.json({ overview: await core().overview() }));
  routes.get('/servers', async (c) => c.json(await core().servers.list(listQuery(c, ['state']) as never)));
  routes.get('/servers/:id', async (c) => c.json(await core().servers.get({ id: c.req.param('id') })));
  routes.get('/servers/:id/metrics', async (c) =>
    c.json(await core().servers.metrics({ id: c.req.param('id'), ...listQuery(c, []) } as never)),
  );
  routes.get('/releases', async (c) =>
    c.json(await core().releases.list(listQuery(c, ['module', 'state']) as never)),
  );
  routes.get('/releases/:id', async (c) => c.json(await core().releases.get({ id: c.req.param('id') })));
  routes.get('/deployments', async (c) =>
    c.json(await core().deployments.list(listQuery(c, ['serverId', 'module']) as never)),
  );
  routes.get('/jobs', async (c) => c.json(await core().jobs.list(listQuery(c, ['state', 'type']) as never)));
  routes.get('/jobs/:id', async (c) => c.json(await core().jobs.get({ id: c.req.param('id') })));
  routes.get('/incidents', async (c) =>
    c.json(await core().incidents.list(listQuery(c, ['state', 'severity']) as never)),
  );
  routes.get('/audit', async (c) => {
    const query = listQuery(c, ['prefix']);
    const limit = query.limit;
    if (limit !== undefined && (typeof limit !== 'number' || limit < 1 || limit > 200)) {
      throw new HalError('validation_failed', 'limit: 1 to 200', {
        details: { issues: [{ path: 'limit', message: 'an integer from 1 to 200' }] },
      });
    }
    return c.json(
      await deps.audit.list({
        limit: limit as number | undefined,
        cursor: query.cursor as string | undefined,
        actionPrefix: query.prefix as string | undefined,
      }),
    );
  });
  routes.get('/mail-services', async (c) => c.json(await core().mail.list()));
  routes.get('/emergency', async (c) => c.json(await core().emergency.list()));
  routes.get('/dr', async (c) => c.json({ dr: await core().dr.status() }));
  routes.get('/changelog', async (c) => c.json(await core().changelog()));
  routes.get('/settings', async (c) =>
    c.json(await core().settings.get(listQuery(c, ['serverId', 'key']) as never)),
  );

  // ---- operations (one definition each: operations/operation-registry.ts) ----------------------
  registerOperationRoutes(routes, deps, write);

  return routes;
}
