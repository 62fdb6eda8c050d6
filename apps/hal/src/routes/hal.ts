import { HalError } from '@hal-ai/spec';
import { type Context, Hono } from 'hono';
import type { AuditLog } from '../audit/types.js';
import type { HalConfig } from '../config.js';
import {
  assertNotHalRollback,
  assertReleaseApprovable,
  describeDeploy,
  describeJobRevert,
  describeReconcile,
  describeReleaseApprove,
  describeRollback,
  describeServerDelete,
  describeServerIsolate,
  describeSettingsApply,
  describeSettingsSet,
  type HighActionDescription,
  revertableDeploy,
} from '../core/core-impacts.js';
import {
  DeployArgs,
  IncidentOpenArgs,
  IncidentResolveArgs,
  ModuleHealthArgs,
  ReconcileArgs,
  ReleaseIdArgs,
  RollbackArgs,
  ServerCreateArgs,
  ServerIdArgs,
  ServerIsolateArgs,
  ServerMaintenanceArgs,
  SettingSecretArgs,
  SettingsApplyArgs,
  SettingsSetArgs,
} from '../core/core-schemas.js';
import { parseInput } from '../core/core-support.js';
import { type HalCore, runningCore } from '../core/hal-core.js';
import type { AppEnv } from '../http/env.js';
import { readJsonObject } from '../http/json-body.js';
import { type RequireRecentDeps, requireRecent } from '../http/require-recent.js';
import { readConfirmation, type ThreeStep } from '../http/three-step.js';
import { receiveReleaseUpload } from '../operations/release-upload.js';

/** What the console API uses: the core, the three steps, the audit log and where uploads go. */
export interface HalRouteDeps extends RequireRecentDeps {
  core: HalCore;
  threeStep: ThreeStep;
  audit: AuditLog;
  config: Pick<HalConfig, 'dataDir' | 'uploadLimitBytes'>;
}

type Ctx = Context<AppEnv>;

const CONFIRMATION_KEYS = ['confirmToken', 'confirmImpact', 'confirmIdentifiers', 'confirmExecute'];

/** The body without the threeStep fields, so the strict argument schemas see only arguments. */
function argsOnly(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !CONFIRMATION_KEYS.includes(key)));
}

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
 * The console API under `/ops/api/hal` (SPEC §13). Reads need a session (the app's middleware);
 * writes add `requireRecent`; high-risk actions add `threeStep`, whose impact names what will change and
 * whose identifiers are what the operator retypes. Every handler calls the same core function, with the
 * same arguments, as the matching AI tool.
 */
export function createHalRoutes(deps: HalRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const write = requireRecent(deps);

  const core = (): HalCore => runningCore(deps);
  const actor = (c: Ctx) => `operator:${c.get('operator').id}` as const;

  async function confirm(
    c: Ctx,
    body: Record<string, unknown>,
    description: HighActionDescription,
  ): Promise<void> {
    await deps.threeStep.check({
      operatorId: c.get('operator').id,
      ...description,
      confirmation: readConfirmation(body),
    });
  }

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

  // ---- servers -----------------------------------------------------------------------------------
  routes.post('/servers', write, async (c) => {
    const body = await readJsonObject(c);
    return c.json(await core().servers.create(actor(c), parseInput(ServerCreateArgs, body)), 201);
  });
  routes.post('/servers/:id/approve', write, async (c) =>
    c.json(await core().servers.approve(actor(c), { id: c.req.param('id') })),
  );
  routes.post('/servers/:id/maintenance', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(ServerMaintenanceArgs, { ...body, id: c.req.param('id') });
    return c.json(await core().servers.setMaintenance(actor(c), args));
  });
  routes.post('/servers/:id/agent-token', write, async (c) =>
    c.json(await core().servers.issueAgentToken(actor(c), { id: c.req.param('id') })),
  );
  routes.post('/servers/:id/isolate', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(ServerIsolateArgs, { ...argsOnly(body), id: c.req.param('id') });
    await core().servers.check('isolate', { id: args.id });
    const { server } = await core().servers.get({ id: args.id });
    await confirm(c, body, describeServerIsolate(server, args.reason));
    return c.json(await core().servers.isolate(actor(c), args));
  });
  routes.delete('/servers/:id', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(ServerIdArgs, { id: c.req.param('id') });
    await core().servers.check('delete', args);
    const { server, deployments } = await core().servers.get(args);
    await confirm(c, body, describeServerDelete(server, deployments));
    return c.json(await core().servers.delete(actor(c), args));
  });

  // ---- releases ----------------------------------------------------------------------------------
  routes.post('/releases', write, async (c) => {
    const result = await receiveReleaseUpload(c.req.raw, actor(c), {
      releases: core().releases,
      dataDir: deps.config.dataDir,
      maxBytes: deps.config.uploadLimitBytes,
    });
    return c.json(result, 201);
  });
  routes.post('/releases/:id/approve', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(ReleaseIdArgs, { id: c.req.param('id') });
    const { release } = await core().releases.get(args);
    assertReleaseApprovable(release);
    await confirm(c, body, describeReleaseApprove(release));
    return c.json(await core().releases.approve(actor(c), args));
  });

  // ---- deployments -------------------------------------------------------------------------------
  routes.post('/deployments', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(DeployArgs, argsOnly(body));
    // Refuse (hal itself, unapproved release, inactive server) before asking for three confirmations.
    await core().deployments.check(args);
    const { server, deployments } = await core().servers.get({ id: args.serverId });
    await confirm(c, body, describeDeploy(args, server, deployments));
    return c.json(await core().deployments.deploy(actor(c), args), 202);
  });
  routes.post('/deployments/rollback', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(RollbackArgs, argsOnly(body));
    assertNotHalRollback(args.module);
    const { server, deployments } = await core().servers.get({ id: args.serverId });
    await confirm(c, body, describeRollback(args, server, deployments));
    return c.json(await core().deployments.rollback(actor(c), args), 202);
  });
  routes.post('/deployments/reconcile', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(ReconcileArgs, argsOnly(body));
    const server = args.serverId ? (await core().servers.get({ id: args.serverId })).server : null;
    await confirm(c, body, describeReconcile(server));
    return c.json(await core().deployments.reconcile(actor(c), args), 202);
  });
  routes.post('/deployments/health', write, async (c) => {
    const args = parseInput(ModuleHealthArgs, await readJsonObject(c));
    return c.json(await core().deployments.health(actor(c), args), 202);
  });

  // ---- jobs --------------------------------------------------------------------------------------
  for (const action of ['cancel', 'retry', 'resume', 'stop'] as const) {
    routes.post(`/jobs/:id/${action}`, write, async (c) => {
      const body = await readJsonObject(c);
      const reason = typeof body.reason === 'string' ? body.reason : undefined;
      const result = await core().jobs.control(actor(c), { id: c.req.param('id'), action, reason });
      return c.json(result, action === 'retry' ? 202 : 200);
    });
  }
  routes.post('/jobs/:id/revert', write, async (c) => {
    const body = await readJsonObject(c);
    const { job } = await core().jobs.get({ id: c.req.param('id') });
    const { serverId } = revertableDeploy(job);
    const { server } = await core().servers.get({ id: serverId });
    await confirm(c, body, describeJobRevert(job, server));
    const reason = typeof body.reason === 'string' ? body.reason : undefined;
    return c.json(await core().jobs.control(actor(c), { id: job.id, action: 'revert', reason }), 202);
  });

  // ---- incidents, DR -----------------------------------------------------------------------------
  routes.post('/incidents', write, async (c) => {
    const args = parseInput(IncidentOpenArgs, await readJsonObject(c));
    return c.json(await core().incidents.open(actor(c), args), 201);
  });
  routes.post('/incidents/:id/resolve', write, async (c) => {
    const args = parseInput(IncidentResolveArgs, { ...(await readJsonObject(c)), id: c.req.param('id') });
    return c.json(await core().incidents.resolve(actor(c), args));
  });
  routes.post('/dr/snapshots', write, async (c) => c.json(await core().dr.snapshot(actor(c)), 201));

  // ---- settings ----------------------------------------------------------------------------------
  routes.patch('/settings', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(SettingsSetArgs, argsOnly(body));
    await core().settings.check(args);
    const { settings } = await core().settings.get({
      key: args.key,
      ...(args.serverId ? { serverId: args.serverId } : {}),
    });
    const before = settings.find((s) => s.key === args.key);
    await confirm(c, body, describeSettingsSet(args, before));
    return c.json(await core().settings.set(actor(c), args));
  });
  routes.post('/settings/secrets', write, async (c) => {
    const args = parseInput(SettingSecretArgs, await readJsonObject(c));
    return c.json(await core().settings.setSecret(actor(c), args));
  });
  routes.post('/settings/apply', write, async (c) => {
    const body = await readJsonObject(c);
    const args = parseInput(SettingsApplyArgs, argsOnly(body));
    const server = args.serverId ? (await core().servers.get({ id: args.serverId })).server : null;
    await confirm(c, body, describeSettingsApply(server));
    return c.json(await core().settings.apply(actor(c), args), 202);
  });

  return routes;
}
