import type { AnyOperation } from './operation-definition.js';
import { deployReconcile, deployRequest, deployRollback, moduleHealth } from './operation-deployments.js';
import { drSnapshot, incidentOpen, incidentResolve } from './operation-incidents.js';
import { jobControl, jobRevert } from './operation-jobs.js';
import { releaseApprove, releaseRegister } from './operation-releases.js';
import {
  serverAgentToken,
  serverApprove,
  serverCreate,
  serverDelete,
  serverIsolate,
  serverMaintenance,
} from './operation-servers.js';
import { settingsApply, settingsSecretSet, settingsSet } from './operation-settings.js';

/**
 * Every HAL operation, once. The console API, the console forms and the AI tools each map every name below to
 * their face (or say why they have none), and `operation-faces.test.ts` proves that all three agree on the tier.
 */
export const HAL_OPERATIONS = {
  'server.create': serverCreate,
  'server.approve': serverApprove,
  'server.maintenance': serverMaintenance,
  'server.agent_token': serverAgentToken,
  'server.isolate': serverIsolate,
  'server.delete': serverDelete,
  'release.register': releaseRegister,
  'release.approve': releaseApprove,
  'deploy.request': deployRequest,
  'deploy.rollback': deployRollback,
  'deploy.reconcile': deployReconcile,
  'module.health': moduleHealth,
  'job.control': jobControl,
  'job.revert': jobRevert,
  'incident.open': incidentOpen,
  'incident.resolve': incidentResolve,
  'dr.snapshot': drSnapshot,
  'settings.set': settingsSet,
  'settings.secret_set': settingsSecretSet,
  'settings.apply': settingsApply,
} as const;

/** The name of a HAL operation. */
export type OperationName = keyof typeof HAL_OPERATIONS;

/** The definition of the operation called `N`. */
export type OperationNamed<N extends OperationName> = (typeof HAL_OPERATIONS)[N];

/** Every operation name, in the registry's order. */
export const OPERATION_NAMES = Object.keys(HAL_OPERATIONS) as OperationName[];

/**
 * Why an operation has no face on one surface (e.g. a tool that would take a file). Each adapter's table is typed
 * `{ [N in OperationName]: Face | NoFace }`, so a new operation is a type error in every adapter until it says
 * what it does there.
 */
export interface NoFace {
  none: string;
}

/** Whether a table entry is {@link NoFace}. */
export function isNoFace(entry: unknown): entry is NoFace {
  return typeof entry === 'object' && entry !== null && 'none' in entry;
}

/** Every operation with its name, in the registry's order. */
export function listOperations(): Array<{ name: OperationName; operation: AnyOperation }> {
  return OPERATION_NAMES.map((name) => ({ name, operation: HAL_OPERATIONS[name] }));
}
