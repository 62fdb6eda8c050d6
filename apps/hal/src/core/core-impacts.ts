import { HalError } from '@hal-ai/spec';
import type { Deployment } from './core-deployments.js';
import type { Job } from './core-jobs.js';
import type { Release } from './core-releases.js';
import type { Server } from './core-servers.js';

/*
 * What a high-risk action asks `threeStep` to confirm: the console API (`routes/hal.ts`), the console pages
 * (`pages/pages-operations.tsx`) and the AI tools (`ai/tools/hal-high-tools.ts`) must describe the same
 * action with the same impact, so they all build it here. The builders are pure: each caller loads the
 * records itself, because the callers differ in which early refusals they make before describing.
 */

/** A high-risk action as `threeStep` sees it: what, on which target, its impact, the identifiers to retype. */
export interface HighActionDescription {
  action: string;
  target: string;
  impact: Record<string, unknown>;
  identifiers: string[];
}

type ServerRef = Pick<Server, 'id' | 'name' | 'state'>;
type NamedServer = Pick<Server, 'id' | 'name'>;
type DeploymentRef = Pick<Deployment, 'module' | 'actualVersion' | 'previousVersion'>;

const ALL_SERVERS = 'all servers';

function serverSummary(server: ServerRef) {
  return { id: server.id, name: server.name, state: server.state };
}

/** `server.isolate`: the server leaves service. */
export function describeServerIsolate(server: ServerRef, reason: string | undefined): HighActionDescription {
  return {
    action: 'server.isolate',
    target: `server:${server.id}`,
    impact: {
      summary: `Isolate server ${server.name}: no deployments, its agent is refused`,
      server: serverSummary(server),
      change: { state: { from: server.state, to: 'isolated' } },
      reason,
    },
    identifiers: [server.name, server.id],
  };
}

/** `server.delete`: the agent token is revoked, the history stays. */
export function describeServerDelete(
  server: ServerRef,
  deployments: readonly DeploymentRef[],
): HighActionDescription {
  return {
    action: 'server.delete',
    target: `server:${server.id}`,
    impact: {
      summary: `Delete server ${server.name}: its agent token is revoked; its history stays`,
      server: serverSummary(server),
      change: { state: { from: server.state, to: 'deleted' } },
      deployments: deployments.map((d) => `${d.module}@${d.actualVersion ?? 'none'}`),
    },
    identifiers: [server.name, server.id],
  };
}

/** Refuses early (`invalid_state`) what `releases.approve` would refuse: only `registered` releases approve. */
export function assertReleaseApprovable(release: Pick<Release, 'module' | 'version' | 'state'>): void {
  if (release.state !== 'registered') {
    throw new HalError(
      'invalid_state',
      `${release.module}@${release.version} is ${release.state}, not registered`,
      {
        details: { state: release.state },
      },
    );
  }
}

/** `release.approve`: the release may then be deployed. */
export function describeReleaseApprove(release: Release): HighActionDescription {
  return {
    action: 'release.approve',
    target: `release:${release.id}`,
    impact: {
      summary: `Approve ${release.module}@${release.version}: it may then be deployed to any active server`,
      release: {
        id: release.id,
        module: release.module,
        version: release.version,
        sha256: release.sha256,
        size: release.size,
      },
      change: { state: { from: release.state, to: 'approved' } },
    },
    identifiers: [release.module, release.version],
  };
}

/** `deploy.request`: `module@version` becomes the desired version on the server. */
export function describeDeploy(
  args: { module: string; version: string },
  server: ServerRef,
  deployments: readonly DeploymentRef[],
): HighActionDescription {
  const current = deployments.find((d) => d.module === args.module);
  return {
    action: 'deploy.request',
    target: `server:${server.id}`,
    impact: {
      summary: `Deploy ${args.module}@${args.version} to ${server.name}`,
      server: serverSummary(server),
      change: { module: args.module, from: current?.actualVersion ?? null, to: args.version },
    },
    identifiers: [server.name, `${args.module}@${args.version}`],
  };
}

/** Refuses early (`hal_self_deploy`) a rollback of HAL itself. */
export function assertNotHalRollback(module: string): void {
  if (module === 'hal') throw new HalError('hal_self_deploy', 'HAL does not roll back itself');
}

/** `deploy.rollback`: the module goes back to the version kept at its last deploy. */
export function describeRollback(
  args: { module: string },
  server: ServerRef,
  deployments: readonly DeploymentRef[],
): HighActionDescription {
  const current = deployments.find((d) => d.module === args.module);
  return {
    action: 'deploy.rollback',
    target: `server:${server.id}`,
    impact: {
      summary: `Roll ${args.module} on ${server.name} back to its previous version`,
      server: serverSummary(server),
      change: {
        module: args.module,
        from: current?.actualVersion ?? null,
        to: current?.previousVersion ?? null,
      },
    },
    identifiers: [server.name, args.module],
  };
}

/** `deploy.reconcile`: one server (or every active one, `null`) is brought to its desired versions. */
export function describeReconcile(server: NamedServer | null): HighActionDescription {
  return {
    action: 'deploy.reconcile',
    target: server ? `server:${server.id}` : 'servers:all',
    impact: {
      summary: server
        ? `Bring ${server.name} to its desired versions (deploys or rolls back modules that differ)`
        : 'Bring every active server to its desired versions (deploys or rolls back modules that differ)',
      server: server ? { id: server.id, name: server.name } : 'all active servers',
    },
    identifiers: [server ? server.name : ALL_SERVERS],
  };
}

/** What a revertable deploy job deployed; any other job is refused early with `job_not_revertable`. */
export function revertableDeploy(job: Pick<Job, 'id' | 'type' | 'state' | 'args'>): {
  module: string;
  version: string;
  serverId: string;
} {
  if (job.type !== 'deploy' || job.state !== 'succeeded') {
    throw new HalError(
      'job_not_revertable',
      `Job ${job.id} is a ${job.state} ${job.type}; only succeeded deploys revert`,
    );
  }
  return job.args as { module: string; version: string; serverId: string };
}

/** `job.revert`: a rollback job undoes a succeeded deploy. */
export function describeJobRevert(job: Job, server: NamedServer): HighActionDescription {
  const { module, version } = revertableDeploy(job);
  return {
    action: 'job.revert',
    target: `job:${job.id}`,
    impact: {
      summary: `Revert deploy ${module}@${version} on ${server.name}: a rollback job to its previous version`,
      job: { id: job.id, type: job.type, finishedAt: job.finishedAt },
      server: { id: server.id, name: server.name },
    },
    identifiers: [server.name, `${module}@${version}`],
  };
}

/** `settings.set`: one key, globally or on one server; `before` is its current effective value, if any. */
export function describeSettingsSet(
  args: { key: string; value: unknown; serverId?: string | undefined },
  before: { value: unknown } | undefined,
): HighActionDescription {
  return {
    action: 'settings.set',
    target: args.serverId ? `server:${args.serverId}` : 'settings:global',
    impact: {
      summary: `Set ${args.key}${args.serverId ? ` on server ${args.serverId}` : ' (global)'}`,
      change: { key: args.key, from: before?.value ?? null, to: args.value },
    },
    identifiers: [args.key],
  };
}

/** `settings.apply`: one server's (or, `null`, HAL's and every active server's) effective settings. */
export function describeSettingsApply(server: NamedServer | null): HighActionDescription {
  return {
    action: 'settings.apply',
    target: server ? `server:${server.id}` : 'servers:all',
    impact: {
      summary: server
        ? `Apply the effective settings to ${server.name}`
        : 'Apply settings to HAL and every active server',
    },
    identifiers: [server ? server.name : ALL_SERVERS],
  };
}
