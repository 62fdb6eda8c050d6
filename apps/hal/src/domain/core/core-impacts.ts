import { HalError } from '@hal-ai/spec';
import { type ImpactSummaryCode, translate } from '@hal-ai/ui-panel/i18n';
import type { Deployment } from './core-deployments.js';
import type { Job } from './core-jobs.js';
import type { Release } from './core-releases.js';
import type { Server } from './core-servers.js';

/*
 * What a high-risk action asks `threeStep` to confirm. The builders are pure; the operation definitions
 * (`operations/operation-*.ts`) load the records, make the early refusals and call them, and the console API,
 * the console pages and the AI tools all take the description from there.
 */

/** A high-risk action as `threeStep` sees it: what, on which target, its impact, the identifiers to retype. */
export interface HighActionDescription {
  action: string;
  target: string;
  impact: Record<string, unknown>;
  identifiers: string[];
}

type ServerRef = Pick<Server, 'id' | 'name' | 'state'>;
type DeploymentRef = Pick<Deployment, 'module' | 'actualVersion' | 'previousVersion'>;
type DesiredRef = Pick<Deployment, 'module' | 'actualVersion' | 'desiredVersion'> & { serverId?: string };

/** What the identifiers name when an operation targets every active server (no `serverId`). */
export const ALL_SERVERS = 'all servers';

/** The values of an impact's summary sentence (`{name}` placeholders of its catalogue message). */
export type ImpactParams = Readonly<Record<string, string | number>>;

/**
 * An impact's summary line, three ways: `summaryCode` + `summaryParams` for the operator's screen (the catalogue
 * sentence in their language: the proposal card, the three steps) and `summary`, the English sentence models and
 * MCP clients read — the catalogue's English message itself, so the two can never tell different stories.
 *
 * @example
 * impactSummary('impact_server_isolate', { name: 'web-1' });
 * // { summary: 'Isolate server web-1: no deployments, its agent is refused',
 * //   summaryCode: 'impact_server_isolate', summaryParams: { name: 'web-1' } }
 */
export function impactSummary(
  code: ImpactSummaryCode,
  params: ImpactParams = {},
): { summary: string; summaryCode: ImpactSummaryCode; summaryParams: ImpactParams } {
  return { summary: translate('en', code, params), summaryCode: code, summaryParams: params };
}

/** A server as an impact names it: id, name and current state. */
export function serverSummary(server: ServerRef) {
  return { id: server.id, name: server.name, state: server.state };
}

/** `server.isolate`: the server leaves service. */
export function describeServerIsolate(server: ServerRef, reason: string | undefined): HighActionDescription {
  return {
    action: 'server.isolate',
    target: `server:${server.id}`,
    impact: {
      ...impactSummary('impact_server_isolate', { name: server.name }),
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
      ...impactSummary('impact_server_delete', { name: server.name }),
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
      ...impactSummary('impact_release_approve', { module: release.module, version: release.version }),
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
      ...impactSummary('impact_deploy_request', {
        module: args.module,
        version: args.version,
        server: server.name,
      }),
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
      ...impactSummary('impact_deploy_rollback', { module: args.module, server: server.name }),
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

/**
 * `deploy.reconcile`: one server (or every active one, `null`) is brought to its desired versions;
 * `deployments` are that server's (or every server's) deployments, of which the differing ones are listed.
 */
export function describeReconcile(
  server: ServerRef | null,
  deployments: readonly DesiredRef[],
): HighActionDescription {
  const differences = deployments
    .filter((d) => d.desiredVersion !== d.actualVersion)
    .map((d) => ({
      ...(server ? {} : { serverId: d.serverId }),
      module: d.module,
      from: d.actualVersion,
      to: d.desiredVersion,
    }));
  return {
    action: 'deploy.reconcile',
    target: server ? `server:${server.id}` : 'servers:all',
    impact: {
      ...(server
        ? impactSummary('impact_deploy_reconcile_server', { server: server.name })
        : impactSummary('impact_deploy_reconcile_all')),
      ...(server
        ? { server: serverSummary(server) }
        : { server: 'all active servers', serverCode: 'impact_value_all_servers' }),
      differences,
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
export function describeJobRevert(job: Job, server: ServerRef): HighActionDescription {
  const { module, version } = revertableDeploy(job);
  return {
    action: 'job.revert',
    target: `job:${job.id}`,
    impact: {
      ...impactSummary('impact_job_revert', { module, version, server: server.name }),
      job: { id: job.id, type: job.type, finishedAt: job.finishedAt },
      server: serverSummary(server),
      change: { module, from: version, to: 'the previous version', toCode: 'impact_value_previous_version' },
    },
    identifiers: [server.name, `${module}@${version}`],
  };
}

/**
 * `settings.set`: one key, globally (`server: null`) or on one server; `before` is its current effective value
 * (and where that value comes from), if any.
 */
export function describeSettingsSet(
  args: { key: string; value: unknown },
  server: ServerRef | null,
  before: { value: unknown; source?: string } | undefined,
): HighActionDescription {
  return {
    action: 'settings.set',
    target: server ? `server:${server.id}` : 'settings:global',
    impact: {
      ...(server
        ? impactSummary('impact_settings_set_server', { key: args.key, server: server.name })
        : impactSummary('impact_settings_set_global', { key: args.key })),
      ...(server ? { server: serverSummary(server) } : {}),
      change: {
        key: args.key,
        from: before?.value ?? null,
        fromSource: before?.source ?? null,
        to: args.value,
        ...(args.value === null
          ? {
              note: 'null removes the stored value: the key falls back',
              noteCode: 'impact_value_setting_fallback',
            }
          : {}),
      },
    },
    identifiers: [args.key],
  };
}

/**
 * `settings.apply`: one server's (or, `null`, HAL's and every active server's) effective settings; `values` are
 * that server's non-confidential effective values (never a confidential one, not even as a hint).
 */
export function describeSettingsApply(
  server: ServerRef | null,
  values: Record<string, unknown>,
): HighActionDescription {
  return {
    action: 'settings.apply',
    target: server ? `server:${server.id}` : 'servers:all',
    impact: server
      ? {
          ...impactSummary('impact_settings_apply_server', { server: server.name }),
          server: serverSummary(server),
          values,
        }
      : {
          ...impactSummary('impact_settings_apply_all'),
          server: 'all active servers',
          serverCode: 'impact_value_all_servers',
        },
    identifiers: [server ? server.name : ALL_SERVERS],
  };
}
