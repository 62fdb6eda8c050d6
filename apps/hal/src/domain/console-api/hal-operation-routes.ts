import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../../platform/http/env.js';
import { readJsonObject } from '../../platform/http/json-body.js';
import { readConfirmation, type ThreeStep } from '../../platform/http/three-step.js';
import { parseInput } from '../core/core-support.js';
import { type HalCore, runningCore } from '../core/hal-core.js';
import { type AnyOperation, impactOf } from '../operations/operation-definition.js';
import {
  HAL_OPERATIONS,
  isNoFace,
  type NoFace,
  type OperationName,
} from '../operations/operation-registry.js';
import { receiveReleaseUpload } from '../operations/release-upload.js';

/*
 * The JSON face of every HAL operation (SPEC §13): where its arguments come from (path parameters, and the JSON
 * body unless `body: false`) and what status answers it. Everything else — the schema, the tier's guards, the
 * early refusal, the impact and the core call — comes from the operation's definition.
 */

/** How one operation is reached over JSON, under `/ops/api/hal`. */
export interface OperationRoute {
  method: 'post' | 'patch' | 'delete';
  path: string;
  /** The answer's status (default 200). */
  status?: ContentfulStatusCode | ((args: Record<string, unknown>) => ContentfulStatusCode);
  /** `false`: only path parameters are arguments (a high operation still reads its confirmations from the body). */
  body?: false;
  /** The multipart release upload (SPEC §14 "Releases") instead of a JSON body. */
  upload?: true;
}

/** Every operation's JSON route (or why it has none). */
export const OPERATION_ROUTES: { [N in OperationName]: OperationRoute | NoFace } = {
  'server.create': { method: 'post', path: '/servers', status: 201 },
  'server.approve': { method: 'post', path: '/servers/:id/approve', body: false },
  'server.maintenance': { method: 'post', path: '/servers/:id/maintenance' },
  'server.agent_token': { method: 'post', path: '/servers/:id/agent-token', body: false },
  'server.isolate': { method: 'post', path: '/servers/:id/isolate' },
  'server.delete': { method: 'delete', path: '/servers/:id', body: false },
  'release.register': { method: 'post', path: '/releases', status: 201, upload: true },
  'release.approve': { method: 'post', path: '/releases/:id/approve', body: false },
  'deploy.request': { method: 'post', path: '/deployments', status: 202 },
  'deploy.rollback': { method: 'post', path: '/deployments/rollback', status: 202 },
  'deploy.reconcile': { method: 'post', path: '/deployments/reconcile', status: 202 },
  'module.health': { method: 'post', path: '/deployments/health', status: 202 },
  'job.control': {
    method: 'post',
    path: '/jobs/:id/:action{cancel|retry|resume|stop}',
    status: (args) => (args.action === 'retry' ? 202 : 200),
  },
  'job.revert': { method: 'post', path: '/jobs/:id/revert', status: 202 },
  'incident.open': { method: 'post', path: '/incidents', status: 201 },
  'incident.resolve': { method: 'post', path: '/incidents/:id/resolve' },
  'dr.snapshot': { method: 'post', path: '/dr/snapshots', status: 201, body: false },
  'settings.set': { method: 'patch', path: '/settings' },
  'settings.secret_set': { method: 'post', path: '/settings/secrets' },
  'settings.apply': { method: 'post', path: '/settings/apply', status: 202 },
};

/** What the operation routes use: the core, the three steps and where uploads go. */
export interface OperationRouteDeps {
  core: HalCore;
  threeStep: ThreeStep;
  config: { dataDir: string; uploadLimitBytes: number };
}

const CONFIRMATION_KEYS = ['confirmToken', 'confirmImpact', 'confirmIdentifiers', 'confirmExecute'];

/** The body without the threeStep fields, so the strict argument schemas see only arguments. */
function argsOnly(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !CONFIRMATION_KEYS.includes(key)));
}

/**
 * Registers every operation's JSON route on `routes`: `guard` (`requireRecent`) first, the arguments validated
 * with the operation's schema, then for a high operation its early refusal and impact through `threeStep` (`409
 * three_step_required` with the impact and the identifiers to retype), then the operation's core call.
 */
export function registerOperationRoutes(
  routes: Hono<AppEnv>,
  deps: OperationRouteDeps,
  guard: MiddlewareHandler<AppEnv>,
): void {
  for (const name of Object.keys(OPERATION_ROUTES) as OperationName[]) {
    const face = OPERATION_ROUTES[name];
    if (isNoFace(face)) continue;
    routes.on(
      face.method.toUpperCase(),
      face.path,
      guard,
      operationHandler(HAL_OPERATIONS[name], face, deps),
    );
  }
}

function operationHandler(operation: AnyOperation, face: OperationRoute, deps: OperationRouteDeps) {
  const statusOf = (args: Record<string, unknown>): ContentfulStatusCode =>
    typeof face.status === 'function' ? face.status(args) : (face.status ?? 200);
  return async function handle(c: Context<AppEnv>) {
    const core = runningCore(deps);
    const operator = c.get('operator');
    const actor = `operator:${operator.id}` as const;
    if (face.upload) {
      const result = await receiveReleaseUpload(c.req.raw, actor, {
        core,
        dataDir: deps.config.dataDir,
        maxBytes: deps.config.uploadLimitBytes,
      });
      return c.json(result, statusOf({}));
    }
    const high = operation.tier === 'high';
    const body = face.body === false && !high ? {} : await readJsonObject(c);
    const fromBody = face.body === false ? {} : high ? argsOnly(body) : body;
    const args = parseInput(operation.args, { ...fromBody, ...c.req.param() }) as Record<string, unknown>;
    if (high) {
      // Refuse (e.g. HAL itself, an unapproved release) before asking for three confirmations.
      const description = await impactOf(operation, args, core);
      await deps.threeStep.check({
        operatorId: operator.id,
        ...description,
        confirmation: readConfirmation(body),
      });
    }
    return c.json(await operation.execute(core, actor, args), statusOf(args));
  };
}
