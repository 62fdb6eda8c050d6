import * as v from 'valibot';
import { PageSchema } from './core-support.js';

/*
 * The argument schemas of every core function. The console routes and the AI tools validate with exactly
 * these, so a tool can never pass something the console could not. Each is a plain `v.strictObject` of
 * primitives (unknown keys are refused) so it converts to JSON Schema for every provider.
 */

const id = v.pipe(v.string(), v.minLength(1), v.maxLength(100));
/** Module and version names: safe as folder names on every agent (nothing can escape its folder). */
const name = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lower-case letters, digits, . _ - (max 64)'),
);
const reason = v.optional(v.pipe(v.string(), v.maxLength(500)));

/** States of a server. */
export const SERVER_STATES = ['pending', 'active', 'maintenance', 'isolated', 'deleted'] as const;
/** States of a job. */
export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'paused'] as const;
/** Job types the runner knows. */
export const JOB_TYPES = ['deploy', 'rollback', 'reconcile', 'settings_apply', 'module_health'] as const;
/** Job control actions (SPEC §13 `jobs/:id/{cancel,retry,resume,stop,revert}`). */
export const JOB_CONTROL_ACTIONS = ['cancel', 'retry', 'resume', 'stop', 'revert'] as const;
/** Incident severities, worst first. */
export const INCIDENT_SEVERITIES = ['critical', 'major', 'minor', 'info'] as const;

/** `servers.list` */
export const ServersListArgs = v.strictObject({
  state: v.optional(v.picklist(SERVER_STATES)),
  ...PageSchema,
});
/** `servers.get`, `servers.approve`, `servers.delete` */
export const ServerIdArgs = v.strictObject({ id });
/** `servers.create` */
export const ServerCreateArgs = v.strictObject({
  name: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9][a-z0-9.-]{0,62}$/, 'a host name: lower-case letters, digits, . -'),
  ),
  role: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
});
/** `servers.setMaintenance` */
export const ServerMaintenanceArgs = v.strictObject({ id, on: v.boolean() });
/** `servers.isolate` */
export const ServerIsolateArgs = v.strictObject({
  id,
  reason: v.pipe(v.string(), v.minLength(1), v.maxLength(500)),
});
/** `servers.metrics` */
export const ServerMetricsArgs = v.strictObject({
  id,
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200))),
});

/** `releases.list` */
export const ReleasesListArgs = v.strictObject({
  module: v.optional(name),
  state: v.optional(v.picklist(['registered', 'approved', 'revoked'])),
  ...PageSchema,
});
/** `releases.get`, `releases.approve` */
export const ReleaseIdArgs = v.strictObject({ id });
/** The text fields of a release upload: what it claims to be (the file is the `artifact` part). */
export const ReleaseUploadFields = v.strictObject({
  module: name,
  version: name,
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, '64 hex digits')),
});
/** `releases.register` (console upload only — not a tool: tools never take file paths) */
export const ReleaseRegisterArgs = v.strictObject({
  ...ReleaseUploadFields.entries,
  artifact: v.pipe(v.string(), v.minLength(1)),
});

/** `deployments.deploy` */
export const DeployArgs = v.strictObject({ module: name, version: name, serverId: id, reason });
/** `deployments.rollback` */
export const RollbackArgs = v.strictObject({ module: name, serverId: id, reason });
/** `deployments.reconcile` (all active servers when `serverId` is absent) */
export const ReconcileArgs = v.strictObject({ serverId: v.optional(id), reason });
/** `deployments.health` */
export const ModuleHealthArgs = v.strictObject({ module: name, serverId: id });
/** `deployments.list` */
export const DeploymentsListArgs = v.strictObject({
  serverId: v.optional(id),
  module: v.optional(name),
  ...PageSchema,
});

/** `jobs.list` */
export const JobsListArgs = v.strictObject({
  state: v.optional(v.picklist(JOB_STATES)),
  type: v.optional(v.picklist(JOB_TYPES)),
  /** Only the jobs aimed at this one server (target `server:<id>`), as its page lists them. */
  serverId: v.optional(id),
  ...PageSchema,
});
/** `jobs.get` */
export const JobIdArgs = v.strictObject({ id });
/** `jobs.control` */
export const JobControlArgs = v.strictObject({ id, action: v.picklist(JOB_CONTROL_ACTIONS), reason });

/** `incidents.list` */
export const IncidentsListArgs = v.strictObject({
  state: v.optional(v.picklist(['open', 'resolved'])),
  severity: v.optional(v.picklist(INCIDENT_SEVERITIES)),
  ...PageSchema,
});
/** `incidents.open` */
export const IncidentOpenArgs = v.strictObject({
  key: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._:-]{0,63}$/, 'a short key like mail.queue-stuck')),
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  severity: v.picklist(INCIDENT_SEVERITIES),
  detail: v.optional(v.pipe(v.string(), v.maxLength(4000))),
});
/** `incidents.resolve` */
export const IncidentResolveArgs = v.strictObject({
  id,
  resolution: v.pipe(v.string(), v.minLength(1), v.maxLength(2000)),
});

/** Functions without arguments (`mail.list`, `emergency.list`, `dr.status`, `dr.snapshot`, `changelog`, `overview`). */
export const NoArgs = v.strictObject({});

/** `settings.get` */
export const SettingsGetArgs = v.strictObject({
  serverId: v.optional(id),
  key: v.optional(v.pipe(v.string(), v.maxLength(100))),
});
/** `settings.set` — `value: null` removes the stored value (back to the default or the global value). */
export const SettingsSetArgs = v.strictObject({
  key: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  value: v.union([v.string(), v.number(), v.boolean(), v.null()]),
  serverId: v.optional(id),
});
/** `settings.setSecret` — a confidential value for the vault; `null` removes it. Console only, never a tool. */
export const SettingSecretArgs = v.strictObject({
  key: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  value: v.union([
    v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(4096, 'at most 4096 characters')),
    v.null(),
  ]),
  serverId: v.optional(id),
});
/** `settings.apply` */
export const SettingsApplyArgs = v.strictObject({ serverId: v.optional(id) });

/** Input type of a schema. */
export type ArgsOf<S extends v.GenericSchema> = v.InferInput<S>;
