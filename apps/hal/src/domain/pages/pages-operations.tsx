import type { Context, Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { AppEnv } from '../../platform/http/env.js';
import { parseInput } from '../core/core-support.js';
import { type HalCore, runningCore } from '../core/hal-core.js';
import {
  type AnyOperation,
  impactOf,
  type OperationArgs,
  type OperationResult,
} from '../operations/operation-definition.js';
import {
  HAL_OPERATIONS,
  isNoFace,
  type NoFace,
  type OperationName,
  type OperationNamed,
} from '../operations/operation-registry.js';
import { ARTIFACT_FIELD, receiveReleaseUpload } from '../operations/release-upload.js';
import { type PageDeps, pageAction, pageUploadAction } from './pages-actions.js';
import type { Section } from './pages-layout.js';
import { type NoticeRedirect, noticeLocation, withNotice } from './pages-notice.js';
import { AgentTokenView } from './pages-views.js';

type Ctx = Context<AppEnv>;

/*
 * The console form face of every HAL operation: which form fields are its arguments and where the browser goes
 * afterwards. The guards (`requireRecent` with the re-auth form, the three pages of `threeStep` for high ones),
 * the schema, the early refusal, the impact and the core call come from the operation's definition — so a form
 * refuses before step 1 exactly what the JSON route and the AI tool refuse.
 */

/** One operation behind a POST form under `/ops`. */
interface OperationForm<N extends OperationName> {
  path: string;
  /** The page title's message key (a function of the path parameters where the path names the action). */
  title: string | ((params: Record<string, string>) => string);
  section: Section;
  /** The form fields that are arguments (path parameters are added to them). */
  fields?(
    fields: Record<string, string>,
    core: HalCore,
  ): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Where the browser goes next (with a notice code), or a page to show instead (a token shown once). */
  done(
    result: OperationResult<OperationNamed<N>>,
    args: OperationArgs<OperationNamed<N>>,
  ): NoticeRedirect | { body: Child };
  /** Fields that carry a secret: never written back into a page (see `PageAction.secretFields`). */
  secretFields?: string[];
  /** The multipart release upload instead of a urlencoded form. */
  upload?: true;
}

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

/** Every operation's console form (or why it has none). */
export const OPERATION_FORMS: { [N in OperationName]: OperationForm<N> | NoFace } = {
  'server.create': {
    path: '/servers',
    title: 'op_server_create',
    section: '/ops/servers',
    fields: (fields) => pick(fields, ['name', 'role']),
    done: ({ server }) => withNotice('/ops/servers', 'server_registered', { name: server.name }),
  },
  'server.approve': {
    path: '/servers/:id/approve',
    title: 'op_server_approve',
    section: '/ops/servers',
    done: ({ server }) => withNotice('/ops/servers', 'server_approved', { name: server.name }),
  },
  'server.maintenance': {
    path: '/servers/:id/maintenance',
    title: 'op_server_maintenance',
    section: '/ops/servers',
    fields: (fields) => ({ on: fields.on === 'true' }),
    done: ({ server }) =>
      withNotice('/ops/servers', 'server_maintenance', { name: server.name, state: server.state }),
  },
  'server.agent_token': {
    path: '/servers/:id/agent-token',
    title: 'op_agent_token',
    section: '/ops/servers',
    // Shown once; renderPage marks every page `no-store`, so it is not cached either.
    done: ({ server, token }) => ({
      body: <AgentTokenView serverName={server.name} serverId={server.id} token={token} />,
    }),
  },
  'server.isolate': {
    path: '/servers/:id/isolate',
    title: 'op_server_isolate',
    section: '/ops/servers',
    fields: (fields) => pick(fields, ['reason']),
    done: ({ server }) => withNotice('/ops/servers', 'server_isolated', { name: server.name }),
  },
  'server.delete': {
    path: '/servers/:id/delete',
    title: 'op_server_delete',
    section: '/ops/servers',
    done: ({ server }) => withNotice('/ops/servers', 'server_deleted', { name: server.name }),
  },
  'release.register': {
    path: '/releases',
    title: 'op_release_upload',
    section: '/ops/releases',
    upload: true,
    done: ({ release }) =>
      withNotice('/ops/releases', 'release_registered', {
        module: release.module,
        version: release.version,
      }),
  },
  'release.approve': {
    path: '/releases/:id/approve',
    title: 'op_release_approve',
    section: '/ops/releases',
    done: ({ release }) =>
      withNotice('/ops/releases', 'release_approved', {
        module: release.module,
        version: release.version,
      }),
  },
  'deploy.request': {
    path: '/deployments',
    title: 'op_deploy',
    section: '/ops/releases',
    fields: (fields) => pick(fields, ['module', 'version', 'serverId'], ['reason']),
    done: ({ job }) => withNotice(`/ops/jobs/${job.id}`, 'deploy_queued', { id: job.id }),
  },
  'deploy.rollback': {
    path: '/deployments/rollback',
    title: 'op_rollback',
    section: '/ops/releases',
    fields: (fields) => pick(fields, ['module', 'serverId'], ['reason']),
    done: ({ job }) => withNotice(`/ops/jobs/${job.id}`, 'rollback_queued', { id: job.id }),
  },
  'deploy.reconcile': {
    path: '/deployments/reconcile',
    title: 'op_reconcile',
    section: '/ops/releases',
    fields: (fields) => pick(fields, [], ['serverId', 'reason']),
    done: ({ job }) => withNotice(`/ops/jobs/${job.id}`, 'reconcile_queued', { id: job.id }),
  },
  'module.health': {
    none: 'the console shows module health on the server page; a check is asked through the JSON API or a model',
  },
  'job.control': {
    path: '/jobs/:id/:action{cancel|retry|resume|stop}',
    title: (params) => `op_job_${params.action ?? ''}`,
    section: '/ops/jobs',
    fields: (fields) => pick(fields, [], ['reason']),
    done: ({ job }, args) =>
      withNotice(`/ops/jobs/${job.id}`, `job_${args.action}`, { id: job.id, state: job.state }),
  },
  'job.revert': {
    path: '/jobs/:id/revert',
    title: 'op_job_revert',
    section: '/ops/jobs',
    fields: (fields) => pick(fields, [], ['reason']),
    done: ({ job }) => withNotice(`/ops/jobs/${job.id}`, 'revert_queued', { id: job.id }),
  },
  'incident.open': {
    path: '/incidents',
    title: 'op_incident_open',
    section: '/ops/incidents',
    fields: (fields) => pick(fields, ['key', 'title', 'severity'], ['detail']),
    done: ({ incident }) => withNotice('/ops/incidents', 'incident_opened', { key: incident.key }),
  },
  'incident.resolve': {
    path: '/incidents/:id/resolve',
    title: 'op_incident_resolve',
    section: '/ops/incidents',
    fields: (fields) => pick(fields, ['resolution']),
    done: ({ incident }) => withNotice('/ops/incidents', 'incident_resolved', { key: incident.key }),
  },
  'dr.snapshot': {
    path: '/dr/snapshots',
    title: 'op_dr_snapshot',
    section: '/ops',
    done: () => withNotice('/ops', 'dr_snapshot'),
  },
  'settings.set': {
    path: '/settings',
    title: 'op_settings_set',
    section: '/ops/settings',
    fields: async (fields, core) => {
      const raw = pick(fields, ['key'], ['serverId']);
      const { settings } = await core.settings.get({ key: raw.key ?? '' });
      const definition = settings.find((s) => s.key === raw.key);
      return {
        ...raw,
        value: coerceSetting(definition?.type, fields.unset === 'true' ? null : (fields.value ?? '')),
      };
    },
    done: ({ setting }) => withNotice('/ops/settings', 'setting_set', { key: setting.key }),
  },
  'settings.secret_set': {
    path: '/settings/secret',
    title: 'op_settings_secret',
    section: '/ops/settings',
    secretFields: ['value'],
    fields: (fields) => ({
      ...pick(fields, ['key'], ['serverId']),
      value: fields.unset === 'true' ? null : (fields.value ?? ''),
    }),
    done: ({ setting }) =>
      withNotice('/ops/settings', setting.value === null ? 'secret_unset' : 'secret_set', {
        key: setting.key,
      }),
  },
  'settings.apply': {
    path: '/settings/apply',
    title: 'op_settings_apply',
    section: '/ops/settings',
    fields: (fields) => pick(fields, [], ['serverId']),
    done: ({ job }) => withNotice(`/ops/jobs/${job.id}`, 'settings_apply_queued', { id: job.id }),
  },
};

/** The type-erased form a registration loop holds (each entry was checked against its operation above). */
type AnyOperationForm = Omit<OperationForm<OperationName>, 'done'> & {
  done(result: unknown, args: unknown): NoticeRedirect | { body: Child };
};

/**
 * Registers every operation's console form as a POST route on `routes` (mounted at `/ops`): the re-auth guard,
 * the arguments from the form, then for a high operation its early refusal and impact through the three pages
 * (so an operator never confirms what the core refuses), then the operation's core call.
 */
export function registerOperations(routes: Hono<AppEnv>, deps: PageDeps): void {
  for (const name of Object.keys(OPERATION_FORMS) as OperationName[]) {
    const face = OPERATION_FORMS[name];
    if (isNoFace(face)) continue;
    routes.post(face.path, operationForm(HAL_OPERATIONS[name], face as AnyOperationForm, deps));
  }
}

function operationForm(operation: AnyOperation, face: AnyOperationForm, deps: PageDeps) {
  const core = (): HalCore => runningCore(deps);
  const actor = (c: Ctx) => `operator:${c.get('operator').id}` as const;
  const { title } = face;
  if (face.upload) {
    return pageUploadAction(deps, {
      title: typeof title === 'string' ? title : title({}),
      section: face.section,
      fileField: ARTIFACT_FIELD,
      receive: async (c, beforeFile) => {
        const result = await receiveReleaseUpload(c.req.raw, actor(c), {
          core: core(),
          dataDir: deps.config.dataDir,
          maxBytes: deps.config.uploadLimitBytes,
          beforeFile,
        });
        const outcome = face.done(result, {});
        return 'location' in outcome ? noticeLocation(c, outcome) : face.section;
      },
    });
  }
  return pageAction<Record<string, unknown>>(deps, {
    title: typeof title === 'string' ? title : (c) => title(c.req.param()),
    section: face.section,
    ...(face.secretFields ? { secretFields: face.secretFields } : {}),
    parse: async ({ fields }, c) => {
      const fromFields = face.fields ? await face.fields(fields, core()) : {};
      return parseInput(operation.args, { ...fromFields, ...c.req.param() }) as Record<string, unknown>;
    },
    ...(operation.tier === 'high'
      ? { describe: (args: Record<string, unknown>) => impactOf(operation, args, core()) }
      : {}),
    run: async (args, c) => {
      if (operation.tier === 'write') await operation.refuse?.(core(), args);
      const outcome = face.done(await operation.execute(core(), actor(c), args), args);
      return 'location' in outcome ? noticeLocation(c, outcome) : outcome;
    },
  });
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
