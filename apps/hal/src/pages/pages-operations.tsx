import type { Context, Hono } from 'hono';
import {
  assertNotHalRollback,
  describeDeploy,
  describeJobRevert,
  describeReconcile,
  describeReleaseApprove,
  describeRollback,
  describeServerDelete,
  describeServerIsolate,
  describeSettingsApply,
  describeSettingsSet,
  revertableDeploy,
} from '../core/core-impacts.js';
import {
  DeployArgs,
  IncidentOpenArgs,
  IncidentResolveArgs,
  JOB_CONTROL_ACTIONS,
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
import { ARTIFACT_FIELD, receiveReleaseUpload } from '../operations/release-upload.js';
import { type PageDeps, pageAction, pageUploadAction, withNotice } from './pages-actions.js';
import { AgentTokenView } from './pages-views.js';

type Ctx = Context<AppEnv>;

/** Only the named form fields, without empty optional ones (the strict schemas refuse unknown keys). */
function pick(
  fields: Record<string, string>,
  names: string[],
  optional: string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) if (fields[name] !== undefined) out[name] = fields[name];
  for (const name of optional)
    if (fields[name] !== undefined && fields[name] !== '') out[name] = fields[name];
  return out;
}

/**
 * Registers every console action as a POST form route on `routes` (mounted at `/ops`). Each calls the same
 * core function with the same arguments as `routes/hal.ts`, and high-risk ones describe the same impact and
 * identifiers to `threeStep`.
 */
export function registerOperations(routes: Hono<AppEnv>, deps: PageDeps): void {
  const core = (): HalCore => runningCore(deps);
  const actor = (c: Ctx) => `operator:${c.get('operator').id}` as const;
  const param = (c: Ctx, name: string) => c.req.param(name) ?? '';

  // ---- servers -----------------------------------------------------------------------------------
  routes.post(
    '/servers',
    pageAction(deps, {
      title: 'Register server · 서버 등록',
      section: '/ops/servers',
      parse: async ({ fields }) => parseInput(ServerCreateArgs, pick(fields, ['name', 'role'])),
      run: async (args, c) => {
        const { server } = await core().servers.create(actor(c), args);
        return withNotice('/ops/servers', `Registered ${server.name} (pending approval)`);
      },
    }),
  );
  routes.post(
    '/servers/:id/approve',
    pageAction(deps, {
      title: 'Approve server · 서버 승인',
      section: '/ops/servers',
      parse: async (_input, c) => parseInput(ServerIdArgs, { id: param(c, 'id') }),
      run: async (args, c) => {
        const { server } = await core().servers.approve(actor(c), args);
        return withNotice('/ops/servers', `Approved ${server.name}`);
      },
    }),
  );
  routes.post(
    '/servers/:id/maintenance',
    pageAction(deps, {
      title: 'Maintenance · 점검 모드',
      section: '/ops/servers',
      parse: async ({ fields }, c) =>
        parseInput(ServerMaintenanceArgs, { id: param(c, 'id'), on: fields.on === 'true' }),
      run: async (args, c) => {
        const { server } = await core().servers.setMaintenance(actor(c), args);
        return withNotice('/ops/servers', `${server.name} is ${server.state}`);
      },
    }),
  );
  routes.post(
    '/servers/:id/agent-token',
    pageAction(deps, {
      title: 'Agent token · 에이전트 토큰',
      section: '/ops/servers',
      parse: async (_input, c) => parseInput(ServerIdArgs, { id: param(c, 'id') }),
      run: async (args, c) => {
        const { server, token } = await core().servers.issueAgentToken(actor(c), args);
        // Shown once; renderPage marks every page `no-store`, so it is not cached either.
        return { body: <AgentTokenView serverName={server.name} serverId={server.id} token={token} /> };
      },
    }),
  );
  routes.post(
    '/servers/:id/isolate',
    pageAction(deps, {
      title: 'Isolate server · 서버 격리',
      section: '/ops/servers',
      parse: async ({ fields }, c) =>
        parseInput(ServerIsolateArgs, { id: param(c, 'id'), ...pick(fields, ['reason']) }),
      describe: async (args) => {
        const { server } = await core().servers.get({ id: args.id });
        return describeServerIsolate(server, args.reason);
      },
      run: async (args, c) => {
        const { server } = await core().servers.isolate(actor(c), args);
        return withNotice('/ops/servers', `Isolated ${server.name}`);
      },
    }),
  );
  routes.post(
    '/servers/:id/delete',
    pageAction(deps, {
      title: 'Delete server · 서버 삭제',
      section: '/ops/servers',
      parse: async (_input, c) => parseInput(ServerIdArgs, { id: param(c, 'id') }),
      describe: async (args) => {
        const { server, deployments } = await core().servers.get(args);
        return describeServerDelete(server, deployments);
      },
      run: async (args, c) => {
        const { server } = await core().servers.delete(actor(c), args);
        return withNotice('/ops/servers', `Deleted ${server.name}`);
      },
    }),
  );

  // ---- releases ----------------------------------------------------------------------------------
  routes.post(
    '/releases',
    pageUploadAction(deps, {
      title: 'Upload release · 릴리스 업로드',
      section: '/ops/releases',
      fileField: ARTIFACT_FIELD,
      receive: async (c, beforeFile) => {
        const { release } = await receiveReleaseUpload(c.req.raw, actor(c), {
          releases: core().releases,
          dataDir: deps.config.dataDir,
          maxBytes: deps.config.uploadLimitBytes,
          beforeFile,
        });
        return withNotice('/ops/releases', `Registered ${release.module}@${release.version}`);
      },
    }),
  );
  routes.post(
    '/releases/:id/approve',
    pageAction(deps, {
      title: 'Approve release · 릴리스 승인',
      section: '/ops/releases',
      parse: async (_input, c) => parseInput(ReleaseIdArgs, { id: param(c, 'id') }),
      describe: async (args) => {
        const { release } = await core().releases.get(args);
        return describeReleaseApprove(release);
      },
      run: async (args, c) => {
        const { release } = await core().releases.approve(actor(c), args);
        return withNotice('/ops/releases', `Approved ${release.module}@${release.version}`);
      },
    }),
  );

  // ---- deployments -------------------------------------------------------------------------------
  routes.post(
    '/deployments',
    pageAction(deps, {
      title: 'Deploy · 배포',
      section: '/ops/releases',
      parse: async ({ fields }) => {
        const args = parseInput(DeployArgs, pick(fields, ['module', 'version', 'serverId'], ['reason']));
        // Refuse (hal itself, unapproved release, inactive server) before asking for three confirmations.
        await core().deployments.check(args);
        return args;
      },
      describe: async (args) => {
        const { server, deployments } = await core().servers.get({ id: args.serverId });
        return describeDeploy(args, server, deployments);
      },
      run: async (args, c) => {
        const { job } = await core().deployments.deploy(actor(c), args);
        return withNotice(`/ops/jobs/${job.id}`, `Deploy job ${job.id} queued`);
      },
    }),
  );
  routes.post(
    '/deployments/rollback',
    pageAction(deps, {
      title: 'Roll back · 롤백',
      section: '/ops/releases',
      parse: async ({ fields }) => {
        const args = parseInput(RollbackArgs, pick(fields, ['module', 'serverId'], ['reason']));
        assertNotHalRollback(args.module);
        return args;
      },
      describe: async (args) => {
        const { server, deployments } = await core().servers.get({ id: args.serverId });
        return describeRollback(args, server, deployments);
      },
      run: async (args, c) => {
        const { job } = await core().deployments.rollback(actor(c), args);
        return withNotice(`/ops/jobs/${job.id}`, `Rollback job ${job.id} queued`);
      },
    }),
  );
  routes.post(
    '/deployments/reconcile',
    pageAction(deps, {
      title: 'Reconcile · 상태 맞추기',
      section: '/ops/releases',
      parse: async ({ fields }) => parseInput(ReconcileArgs, pick(fields, [], ['serverId', 'reason'])),
      describe: async (args) => {
        const server = args.serverId ? (await core().servers.get({ id: args.serverId })).server : null;
        return describeReconcile(server);
      },
      run: async (args, c) => {
        const { job } = await core().deployments.reconcile(actor(c), args);
        return withNotice(`/ops/jobs/${job.id}`, `Reconcile job ${job.id} queued`);
      },
    }),
  );

  // ---- jobs --------------------------------------------------------------------------------------
  for (const action of JOB_CONTROL_ACTIONS.filter((a) => a !== 'revert')) {
    routes.post(
      `/jobs/:id/${action}`,
      pageAction(deps, {
        title: `Job ${action}`,
        section: '/ops/jobs',
        parse: async ({ fields }, c) => ({
          id: param(c, 'id'),
          action,
          reason: fields.reason ? fields.reason : undefined,
        }),
        run: async (args, c) => {
          const { job } = await core().jobs.control(actor(c), args);
          return withNotice(`/ops/jobs/${job.id}`, `${action}: job ${job.id} is ${job.state}`);
        },
      }),
    );
  }
  routes.post(
    '/jobs/:id/revert',
    pageAction(deps, {
      title: 'Revert deploy · 배포 되돌리기',
      section: '/ops/jobs',
      parse: async ({ fields }, c) => {
        const { job } = await core().jobs.get({ id: param(c, 'id') });
        revertableDeploy(job);
        return { job, reason: fields.reason ? fields.reason : undefined };
      },
      describe: async ({ job }) => {
        const { server } = await core().servers.get({ id: revertableDeploy(job).serverId });
        return describeJobRevert(job, server);
      },
      run: async ({ job, reason }, c) => {
        const result = await core().jobs.control(actor(c), { id: job.id, action: 'revert', reason });
        return withNotice(`/ops/jobs/${result.job.id}`, `Revert job ${result.job.id} queued`);
      },
    }),
  );

  // ---- incidents, DR -----------------------------------------------------------------------------
  routes.post(
    '/incidents',
    pageAction(deps, {
      title: 'Open incident · 장애 등록',
      section: '/ops/incidents',
      parse: async ({ fields }) =>
        parseInput(IncidentOpenArgs, pick(fields, ['key', 'title', 'severity'], ['detail'])),
      run: async (args, c) => {
        const { incident } = await core().incidents.open(actor(c), args);
        return withNotice('/ops/incidents', `Opened ${incident.key}`);
      },
    }),
  );
  routes.post(
    '/incidents/:id/resolve',
    pageAction(deps, {
      title: 'Resolve incident · 장애 해결',
      section: '/ops/incidents',
      parse: async ({ fields }, c) =>
        parseInput(IncidentResolveArgs, { ...pick(fields, ['resolution']), id: param(c, 'id') }),
      run: async (args, c) => {
        const { incident } = await core().incidents.resolve(actor(c), args);
        return withNotice('/ops/incidents', `Resolved ${incident.key}`);
      },
    }),
  );
  routes.post(
    '/dr/snapshots',
    pageAction(deps, {
      title: 'DR snapshot · DR 스냅샷',
      section: '/ops',
      parse: async () => ({}),
      run: async (_args, c) => {
        await core().dr.snapshot(actor(c));
        return withNotice('/ops', 'DR snapshot written');
      },
    }),
  );

  // ---- settings ----------------------------------------------------------------------------------
  routes.post(
    '/settings',
    pageAction(deps, {
      title: 'Set a setting · 설정 변경',
      section: '/ops/settings',
      parse: async ({ fields }) => {
        const raw = pick(fields, ['key'], ['serverId']);
        const { settings } = await core().settings.get({ key: raw.key ?? '' });
        const definition = settings.find((s) => s.key === raw.key);
        const args = parseInput(SettingsSetArgs, {
          ...raw,
          value: coerceSetting(definition?.type, fields.unset === 'true' ? null : (fields.value ?? '')),
        });
        await core().settings.check(args);
        return args;
      },
      describe: async (args) => {
        const { settings } = await core().settings.get({
          key: args.key,
          ...(args.serverId ? { serverId: args.serverId } : {}),
        });
        return describeSettingsSet(
          args,
          settings.find((s) => s.key === args.key),
        );
      },
      run: async (args, c) => {
        const { setting } = await core().settings.set(actor(c), args);
        return withNotice('/ops/settings', `Set ${setting.key}`);
      },
    }),
  );
  routes.post(
    '/settings/secret',
    pageAction(deps, {
      title: 'Set a confidential value · 비밀값 설정',
      section: '/ops/settings',
      secretFields: ['value'],
      parse: async ({ fields }) =>
        parseInput(SettingSecretArgs, {
          ...pick(fields, ['key'], ['serverId']),
          value: fields.unset === 'true' ? null : (fields.value ?? ''),
        }),
      run: async (args, c) => {
        const { setting } = await core().settings.setSecret(actor(c), args);
        return withNotice('/ops/settings', `${setting.key} is ${setting.value === null ? 'not set' : 'set'}`);
      },
    }),
  );
  routes.post(
    '/settings/apply',
    pageAction(deps, {
      title: 'Apply settings · 설정 적용',
      section: '/ops/settings',
      parse: async ({ fields }) => parseInput(SettingsApplyArgs, pick(fields, [], ['serverId'])),
      describe: async (args) => {
        const server = args.serverId ? (await core().servers.get({ id: args.serverId })).server : null;
        return describeSettingsApply(server);
      },
      run: async (args, c) => {
        const { job } = await core().settings.apply(actor(c), args);
        return withNotice(`/ops/jobs/${job.id}`, `Settings apply job ${job.id} queued`);
      },
    }),
  );
}

/** Form values are text; the setting's declared type says what the core expects. */
export function coerceSetting(
  type: string | undefined,
  value: string | null,
): string | number | boolean | null {
  if (value === null) return null;
  if (type === 'number' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}
