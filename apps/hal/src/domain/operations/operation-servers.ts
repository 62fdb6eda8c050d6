import {
  describeServerDelete,
  describeServerIsolate,
  impactSummary,
  serverSummary,
} from '../core/core-impacts.js';
import {
  ServerCreateArgs,
  ServerIdArgs,
  ServerIsolateArgs,
  ServerMaintenanceArgs,
} from '../core/core-schemas.js';
import { defineOperation } from './operation-definition.js';

/*
 * The server lifecycle (SPEC §1): register → approve → active / maintenance / isolated / deleted, and the
 * console-only agent token.
 */

/** `server.create`: a new remote server starts `pending`. */
export const serverCreate = defineOperation({
  name: 'server.create',
  tier: 'write',
  args: ServerCreateArgs,
  identifiers: (args) => [args.name],
  describe: async (_core, args) => ({
    action: 'server.create',
    target: `server-name:${args.name}`,
    impact: {
      ...impactSummary('impact_server_create', { name: args.name, role: args.role }),
      change: { name: args.name, role: args.role, state: { from: null, to: 'pending' } },
    },
    identifiers: [args.name],
  }),
  execute: (core, actor, args) => core.servers.create(actor, args),
});

/** `server.approve`: a pending server becomes `active`. */
export const serverApprove = defineOperation({
  name: 'server.approve',
  tier: 'write',
  args: ServerIdArgs,
  identifiers: (args) => [args.id],
  describe: async (core, args) => {
    const { server } = await core.servers.get(args);
    return {
      action: 'server.approve',
      target: `server:${server.id}`,
      impact: {
        ...impactSummary('impact_server_approve', { name: server.name }),
        server: serverSummary(server),
        change: { state: { from: server.state, to: 'active' } },
      },
      identifiers: [server.name, server.id],
    };
  },
  execute: (core, actor, args) => core.servers.approve(actor, args),
});

/** `server.maintenance`: into maintenance (`on: true`) or back to `active`. */
export const serverMaintenance = defineOperation({
  name: 'server.maintenance',
  tier: 'write',
  args: ServerMaintenanceArgs,
  identifiers: (args) => [args.id],
  describe: async (core, args) => {
    const { server } = await core.servers.get({ id: args.id });
    return {
      action: 'server.maintenance',
      target: `server:${server.id}`,
      impact: {
        ...impactSummary(args.on ? 'impact_server_maintenance_on' : 'impact_server_maintenance_off', {
          name: server.name,
        }),
        server: serverSummary(server),
        change: { state: { from: server.state, to: args.on ? 'maintenance' : 'active' } },
      },
      identifiers: [server.name, server.id],
    };
  },
  execute: (core, actor, args) => core.servers.setMaintenance(actor, args),
});

/** `server.agent_token`: a new agent token, shown once (console only). */
export const serverAgentToken = defineOperation({
  name: 'server.agent_token',
  tier: 'write',
  args: ServerIdArgs,
  identifiers: (args) => [args.id],
  describe: async (core, args) => {
    const { server } = await core.servers.get(args);
    return {
      action: 'server.agent_token',
      target: `server:${server.id}`,
      impact: {
        ...impactSummary('impact_server_agent_token', { name: server.name }),
        server: serverSummary(server),
      },
      identifiers: [server.name, server.id],
    };
  },
  execute: (core, actor, args) => core.servers.issueAgentToken(actor, args),
});

/** `server.isolate`: the server leaves service (never HAL's own host). */
export const serverIsolate = defineOperation({
  name: 'server.isolate',
  tier: 'high',
  args: ServerIsolateArgs,
  identifiers: (args) => [args.id],
  refuse: (core, args) => core.servers.check('isolate', { id: args.id }),
  describe: async (core, args) => {
    const { server } = await core.servers.get({ id: args.id });
    return describeServerIsolate(server, args.reason);
  },
  execute: (core, actor, args) => core.servers.isolate(actor, args),
});

/** `server.delete`: the agent token is revoked; the history stays (never HAL's own host). */
export const serverDelete = defineOperation({
  name: 'server.delete',
  tier: 'high',
  args: ServerIdArgs,
  identifiers: (args) => [args.id],
  refuse: (core, args) => core.servers.check('delete', args),
  describe: async (core, args) => {
    const { server, deployments } = await core.servers.get(args);
    return describeServerDelete(server, deployments);
  },
  execute: (core, actor, args) => core.servers.delete(actor, args),
});
