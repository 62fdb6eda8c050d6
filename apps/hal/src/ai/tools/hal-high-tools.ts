import { defineTool, type Tool } from '@hal-ai/tools';
import * as v from 'valibot';
import {
  assertNotHalRollback,
  assertReleaseApprovable,
  describeDeploy,
  describeReleaseApprove,
  describeRollback,
  describeServerDelete,
  describeServerIsolate,
  revertableDeploy,
} from '../../core/core-impacts.js';
import {
  DeployArgs,
  JobControlArgs,
  JobIdArgs,
  ReconcileArgs,
  ReleaseIdArgs,
  RollbackArgs,
  ServerIdArgs,
  ServerIsolateArgs,
  SettingsApplyArgs,
  SettingsSetArgs,
} from '../../core/core-schemas.js';
import type { HalToolContext } from './hal-tool-context.js';
import { JOB_STATE_MEANINGS, RELEASE_STATE_MEANINGS, SERVER_STATE_MEANINGS } from './hal-tool-meanings.js';

/*
 * High tools become proposals that run only after an operator re-enters the password and confirms in three
 * steps: the `impact` below (what will change, before → after), retyping the `identifiers`, execute.
 * `identifiers` sees only the arguments, so it names ids and what the arguments carry; `impact` looks up
 * names and current states. Every `impact` refuses early what the core would refuse (HAL itself, an
 * unapproved release, a confidential setting), so no operator is asked to confirm something doomed.
 */

/** `hal_job_revert` arguments: a job id and an optional reason. */
export const JobRevertArgs = v.strictObject({
  id: JobIdArgs.entries.id,
  reason: JobControlArgs.entries.reason,
});

/** `hal_config_set` arguments: a global value of HAL's own configuration (no `serverId`). */
export const ConfigSetArgs = v.omit(SettingsSetArgs, ['serverId']);

/** `hal_settings_set` arguments: one server's override of a per-server setting (`serverId` required). */
export const ServerSettingSetArgs = v.strictObject({
  ...SettingsSetArgs.entries,
  serverId: ServerIdArgs.entries.id,
});

const ALL_SERVERS = 'all servers';
const QUEUED_NOTE = 'The answer is the queued job: follow it with `hal_job_get` until it ends.';

async function serverSummary(context: HalToolContext, id: string) {
  const found = await context.core.servers.get({ id });
  return {
    server: { id: found.server.id, name: found.server.name, state: found.server.state },
    deployments: found.deployments,
  };
}

async function settingChange(
  context: HalToolContext,
  args: { key: string; value: string | number | boolean | null; serverId?: string | undefined },
) {
  await context.core.settings.check(args);
  const { settings } = await context.core.settings.get({
    key: args.key,
    ...(args.serverId === undefined ? {} : { serverId: args.serverId }),
  });
  const before = settings.find((s) => s.key === args.key);
  return {
    key: args.key,
    from: before?.value ?? null,
    fromSource: before?.source ?? null,
    to: args.value,
    ...(args.value === null ? { note: 'null removes the stored value: the key falls back' } : {}),
  };
}

/** Every high tool of SPEC §4, in the SPEC's order. */
export function createHighTools(): Tool<HalToolContext>[] {
  return [
    defineTool({
      name: 'hal_server_isolate',
      title: 'Isolate a server',
      description:
        'Proposes isolating a server after a problem: it leaves service, receives no deployments and its agent is refused until an operator brings it back. Give the evidence in `reason`. HAL’s own host cannot be isolated (`server_is_local`). Prefer `hal_server_maintenance` when the server is healthy but needs work.',
      risk: 'high',
      args: ServerIsolateArgs,
      identifiers: (args) => [args.id],
      impact: async (context: HalToolContext, args) => {
        await context.core.servers.check('isolate', { id: args.id });
        const { server } = await context.core.servers.get({ id: args.id });
        return describeServerIsolate(server, args.reason).impact;
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.servers.isolate(context.actor, args);
        return { ...result, meaning: SERVER_STATE_MEANINGS[result.server.state] };
      },
    }),
    defineTool({
      name: 'hal_server_delete',
      title: 'Delete a server',
      description:
        'Proposes deleting a server: its agent token is revoked and it disappears from lists; its history (jobs, audit) stays. HAL’s own host cannot be deleted (`server_is_local`).',
      risk: 'high',
      args: ServerIdArgs,
      identifiers: (args) => [args.id],
      impact: async (context: HalToolContext, args) => {
        await context.core.servers.check('delete', args);
        const { server, deployments } = await context.core.servers.get(args);
        return describeServerDelete(server, deployments).impact;
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.servers.delete(context.actor, args);
        return { ...result, meaning: SERVER_STATE_MEANINGS[result.server.state] };
      },
    }),
    defineTool({
      name: 'hal_module_deploy',
      title: 'Deploy a module',
      description: `Proposes deploying an approved release (\`module\`@\`version\`) to an active server: it becomes the desired version and a deploy job unpacks it and switches the module's \`current\` link (the previous version is kept for rollback). Never HAL itself (\`hal_self_deploy\`); the release must be \`approved\` (\`release_not_approved\`) and the server \`active\` (\`server_not_active\`). ${QUEUED_NOTE}`,
      risk: 'high',
      args: DeployArgs,
      identifiers: (args) => [args.serverId, `${args.module}@${args.version}`],
      impact: async (context: HalToolContext, args) => {
        await context.core.deployments.check(args);
        const { server, deployments } = await context.core.servers.get({ id: args.serverId });
        return describeDeploy(args, server, deployments).impact;
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.deployments.deploy(context.actor, args);
        return { ...result, meaning: JOB_STATE_MEANINGS[result.job.state] };
      },
    }),
    defineTool({
      name: 'hal_module_rollback',
      title: 'Roll a module back',
      description: `Proposes rolling a module on a server back to its previous version (the one kept at the last deploy). Never HAL itself. ${QUEUED_NOTE}`,
      risk: 'high',
      args: RollbackArgs,
      identifiers: (args) => [args.serverId, args.module],
      impact: async (context: HalToolContext, args) => {
        assertNotHalRollback(args.module);
        const { server, deployments } = await context.core.servers.get({ id: args.serverId });
        return describeRollback(args, server, deployments).impact;
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.deployments.rollback(context.actor, args);
        return { ...result, meaning: JOB_STATE_MEANINGS[result.job.state] };
      },
    }),
    defineTool({
      name: 'hal_module_reconcile',
      title: 'Reconcile modules',
      description: `Proposes bringing one server (\`serverId\`) or every active server (no \`serverId\`) to its desired versions: modules whose actual version differs are deployed or rolled back. ${QUEUED_NOTE}`,
      risk: 'high',
      args: ReconcileArgs,
      identifiers: (args) => [args.serverId ?? ALL_SERVERS],
      impact: async (context: HalToolContext, args) => {
        if (args.serverId === undefined) {
          const { deployments } = await context.core.deployments.list({ limit: 200 });
          return {
            summary:
              'Bring every active server to its desired versions (deploys or rolls back modules that differ)',
            server: 'all active servers',
            differences: deployments.filter((d) => d.desiredVersion !== d.actualVersion),
          };
        }
        const { server, deployments } = await serverSummary(context, args.serverId);
        return {
          summary: `Bring ${server.name} to its desired versions (deploys or rolls back modules that differ)`,
          server,
          differences: deployments
            .filter((d) => d.desiredVersion !== d.actualVersion)
            .map((d) => ({ module: d.module, from: d.actualVersion, to: d.desiredVersion })),
        };
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.deployments.reconcile(context.actor, args);
        return { ...result, meaning: JOB_STATE_MEANINGS[result.job.state] };
      },
    }),
    defineTool({
      name: 'hal_release_approve',
      title: 'Approve a release',
      description:
        'Proposes approving a `registered` release so it may be deployed to any active server. Check the module, version and SHA-256 first (`hal_releases_list`).',
      risk: 'high',
      args: ReleaseIdArgs,
      identifiers: (args) => [args.id],
      impact: async (context: HalToolContext, args) => {
        const { release } = await context.core.releases.get(args);
        assertReleaseApprovable(release);
        return describeReleaseApprove(release).impact;
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.releases.approve(context.actor, args);
        return { ...result, meaning: RELEASE_STATE_MEANINGS[result.release.state] };
      },
    }),
    defineTool({
      name: 'hal_job_revert',
      title: 'Revert a deploy',
      description: `Proposes undoing a succeeded deploy job: a rollback job returns the module on that server to the version before the deploy. Only succeeded deploys revert (\`job_not_revertable\`). ${QUEUED_NOTE}`,
      risk: 'high',
      args: JobRevertArgs,
      identifiers: (args) => [args.id],
      impact: async (context: HalToolContext, args) => {
        const { job } = await context.core.jobs.get({ id: args.id });
        const { module, version, serverId } = revertableDeploy(job);
        const { server } = await serverSummary(context, serverId);
        return {
          summary: `Revert deploy ${module}@${version} on ${server.name}: a rollback job to its previous version`,
          job: { id: job.id, type: job.type, finishedAt: job.finishedAt },
          server,
          change: { module, from: version, to: 'the previous version' },
        };
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.jobs.control(context.actor, {
          id: args.id,
          action: 'revert',
          ...(args.reason === undefined ? {} : { reason: args.reason }),
        });
        return { ...result, meaning: JOB_STATE_MEANINGS[result.job.state] };
      },
    }),
    defineTool({
      name: 'hal_config_set',
      title: 'Set HAL configuration',
      description:
        'Proposes setting the GLOBAL value of one of HAL’s typed configuration keys (e.g. `jobs.concurrency`, `log.level`, `metrics.retention_days`): it applies to HAL and to every server without its own override. `value: null` removes the stored value (back to the default). Unknown keys and wrong types are refused; confidential keys and anything that looks like a credential are refused with `secret_not_allowed`. Runtime effects follow `hal_settings_apply`. For one server’s override use `hal_settings_set`.',
      risk: 'high',
      args: ConfigSetArgs,
      identifiers: (args) => [args.key],
      impact: async (context: HalToolContext, args) => ({
        summary: `Set ${args.key} (global)`,
        change: await settingChange(context, args),
      }),
      execute: (context: HalToolContext, args) => context.core.settings.set(context.actor, args),
    }),
    defineTool({
      name: 'hal_settings_set',
      title: 'Set a server setting',
      description:
        'Proposes setting ONE SERVER’s override of a per-server typed setting (e.g. `deploy.health_check`, `log.level`, `mail.relay_host` on `serverId`); other servers keep the global value. `value: null` removes the override. Global-only keys are refused (`validation_failed`); confidential keys and values that look like credentials are refused with `secret_not_allowed` — secrets go to the vault, never through tools. For HAL-wide values use `hal_config_set`.',
      risk: 'high',
      args: ServerSettingSetArgs,
      identifiers: (args) => [args.serverId, args.key],
      impact: async (context: HalToolContext, args) => {
        const change = await settingChange(context, args);
        const { server } = await serverSummary(context, args.serverId);
        return { summary: `Set ${args.key} on server ${server.name}`, server, change };
      },
      execute: (context: HalToolContext, args) => context.core.settings.set(context.actor, args),
    }),
    defineTool({
      name: 'hal_settings_apply',
      title: 'Apply settings',
      description: `Proposes applying the effective settings: to one server (\`serverId\`), or to HAL itself and every active server (no \`serverId\`). A \`settings_apply\` job validates every stored value, applies HAL’s runtime values and writes each server’s effective values for its agent. ${QUEUED_NOTE}`,
      risk: 'high',
      args: SettingsApplyArgs,
      identifiers: (args) => [args.serverId ?? ALL_SERVERS],
      impact: async (context: HalToolContext, args) => {
        if (args.serverId === undefined) {
          return { summary: 'Apply settings to HAL and every active server', server: 'all active servers' };
        }
        const { server } = await serverSummary(context, args.serverId);
        const { settings } = await context.core.settings.get({ serverId: args.serverId });
        return {
          summary: `Apply the effective settings to ${server.name}`,
          server,
          values: Object.fromEntries(settings.filter((s) => !s.confidential).map((s) => [s.key, s.value])),
        };
      },
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.settings.apply(context.actor, args);
        return { ...result, meaning: JOB_STATE_MEANINGS[result.job.state] };
      },
    }),
  ];
}
