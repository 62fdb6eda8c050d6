import {
  ALL_SERVERS,
  assertNotHalRollback,
  describeDeploy,
  describeReconcile,
  describeRollback,
  impactSummary,
  serverSummary,
} from '../core/core-impacts.js';
import { DeployArgs, ModuleHealthArgs, ReconcileArgs, RollbackArgs } from '../core/core-schemas.js';
import { defineOperation } from './operation-definition.js';

/*
 * Deployments (SPEC §1): deploy an approved release to a server, roll it back, reconcile desired vs actual
 * versions, and check a deployed module's health. Each queues a job; the answer is that job.
 */

/** `deploy.request`: never HAL itself, an approved release, an active server — refused before the three steps. */
export const deployRequest = defineOperation({
  name: 'deploy.request',
  tier: 'high',
  args: DeployArgs,
  identifiers: (args) => [args.serverId, `${args.module}@${args.version}`],
  refuse: (core, args) => core.deployments.check(args),
  describe: async (core, args) => {
    const { server, deployments } = await core.servers.get({ id: args.serverId });
    return describeDeploy(args, server, deployments);
  },
  execute: (core, actor, args) => core.deployments.deploy(actor, args),
});

/** `deploy.rollback`: back to the version kept at the last deploy (never HAL itself). */
export const deployRollback = defineOperation({
  name: 'deploy.rollback',
  tier: 'high',
  args: RollbackArgs,
  identifiers: (args) => [args.serverId, args.module],
  refuse: async (_core, args) => assertNotHalRollback(args.module),
  describe: async (core, args) => {
    const { server, deployments } = await core.servers.get({ id: args.serverId });
    return describeRollback(args, server, deployments);
  },
  execute: (core, actor, args) => core.deployments.rollback(actor, args),
});

/** `deploy.reconcile`: one server, or every active one, to its desired versions. */
export const deployReconcile = defineOperation({
  name: 'deploy.reconcile',
  tier: 'high',
  args: ReconcileArgs,
  identifiers: (args) => [args.serverId ?? ALL_SERVERS],
  describe: async (core, args) => {
    if (args.serverId === undefined) {
      const { deployments } = await core.deployments.list({ limit: 200 });
      return describeReconcile(null, deployments);
    }
    const { server, deployments } = await core.servers.get({ id: args.serverId });
    return describeReconcile(server, deployments);
  },
  execute: (core, actor, args) => core.deployments.reconcile(actor, args),
});

/** `module.health`: a health check job run by the server's agent. */
export const moduleHealth = defineOperation({
  name: 'module.health',
  tier: 'write',
  args: ModuleHealthArgs,
  identifiers: (args) => [args.serverId, args.module],
  describe: async (core, args) => {
    const { server, deployments } = await core.servers.get({ id: args.serverId });
    const deployed = deployments.find((d) => d.module === args.module);
    return {
      action: 'module.health',
      target: `server:${server.id}`,
      impact: {
        ...impactSummary('impact_module_health', { module: args.module, server: server.name }),
        server: serverSummary(server),
        module: { name: args.module, actualVersion: deployed?.actualVersion ?? null },
      },
      identifiers: [server.name, args.module],
    };
  },
  execute: (core, actor, args) => core.deployments.health(actor, args),
});
