import { defineTool, type Tool, type ToolArgsSchema } from '@hal-ai/tools';
import * as v from 'valibot';
import { ServerIdArgs, SettingsSetArgs } from '../../domain/core/core-schemas.js';
import {
  type AnyOperation,
  impactOf,
  type OperationResult,
} from '../../domain/operations/operation-definition.js';
import {
  HAL_OPERATIONS,
  isNoFace,
  type NoFace,
  type OperationName,
  type OperationNamed,
} from '../../domain/operations/operation-registry.js';
import type { HalToolContext } from './hal-tool-context.js';
import {
  DR_VERIFIED_MEANINGS,
  INCIDENT_STATE_MEANINGS,
  JOB_STATE_MEANINGS,
  RELEASE_STATE_MEANINGS,
  SERVER_STATE_MEANINGS,
} from './hal-tool-meanings.js';
import { HAL_TOOL_NAMES, HAL_TOOL_TIERS, type HalToolName } from './hal-tool-tiers.js';

/*
 * The AI tool face of every HAL operation: the name, title and description a model reads, a narrower schema
 * where one operation serves two tools (`hal_config_set` / `hal_settings_set`), and the meaning added to the
 * answer. The tier, the schema, the identifiers, the impact (with its early refusal: no operator is asked to
 * confirm something doomed) and the core call come from the operation's definition. Write tools become proposals
 * an operator approves with a recent password; high tools add the three steps.
 */

/** `hal_config_set` arguments: a global value of HAL's own configuration (no `serverId`). */
export const ConfigSetArgs = v.omit(SettingsSetArgs, ['serverId']);

/** `hal_settings_set` arguments: one server's override of a per-server setting (`serverId` required). */
export const ServerSettingSetArgs = v.strictObject({
  ...SettingsSetArgs.entries,
  serverId: ServerIdArgs.entries.id,
});

/** One AI tool over an operation. */
interface OperationTool<N extends OperationName> {
  name: HalToolName;
  title: string;
  description: string;
  /** A narrower schema than the operation's (its output must be valid operation arguments). */
  args?: ToolArgsSchema;
  /** What the answer's state means, for the model. */
  meaning?(result: OperationResult<OperationNamed<N>>): string | undefined;
  /**
   * Runs the operation's early refusal before a proposal is stored (the tool's `precheck`), not only before the
   * three steps: for refusals about the arguments themselves, e.g. a credential as a setting value — a proposal
   * holding it would already have stored the secret.
   */
  refuseBeforeProposal?: true;
}

const QUEUED_NOTE = 'The answer is the queued job: follow it with `hal_job_get` until it ends.';
const jobMeaning = ({ job }: { job: { state: keyof typeof JOB_STATE_MEANINGS } }) =>
  JOB_STATE_MEANINGS[job.state];
const serverMeaning = ({ server }: { server: { state: keyof typeof SERVER_STATE_MEANINGS } }) =>
  SERVER_STATE_MEANINGS[server.state];

/** Every operation's AI tools (one, two, or why none). */
export const OPERATION_TOOLS: { [N in OperationName]: OperationTool<N> | OperationTool<N>[] | NoFace } = {
  'server.create': {
    name: 'hal_server_create',
    title: 'Register a server',
    description:
      'Proposes registering a new remote server by host name and role. It starts `pending`: it receives nothing until an operator approves it (`hal_server_approve`) and its agent connects with a token an operator issues in the console.',
    meaning: serverMeaning,
  },
  'server.approve': {
    name: 'hal_server_approve',
    title: 'Approve a server',
    description:
      'Proposes approving a `pending` server so it becomes `active` and may receive deployments. Refused with `server_not_pending` for any other state.',
    meaning: serverMeaning,
  },
  'server.maintenance': {
    name: 'hal_server_maintenance',
    title: 'Maintenance mode',
    description:
      'Proposes putting an active server into maintenance (`on: true`: no new deployments while someone works on it) or bringing it back to `active` (`on: false`). The gentler alternative to isolation.',
    meaning: serverMeaning,
  },
  'server.agent_token': {
    none: 'an agent token is a credential: shown once to an operator, never to a model',
  },
  'server.isolate': {
    name: 'hal_server_isolate',
    title: 'Isolate a server',
    description:
      'Proposes isolating a server after a problem: it leaves service, receives no deployments and its agent is refused until an operator brings it back. Give the evidence in `reason`. HAL’s own host cannot be isolated (`server_is_local`). Prefer `hal_server_maintenance` when the server is healthy but needs work.',
    meaning: serverMeaning,
  },
  'server.delete': {
    name: 'hal_server_delete',
    title: 'Delete a server',
    description:
      'Proposes deleting a server: its agent token is revoked and it disappears from lists; its history (jobs, audit) stays. HAL’s own host cannot be deleted (`server_is_local`).',
    meaning: serverMeaning,
  },
  'release.register': { none: 'a release is an uploaded file; tools never take file paths (SPEC §4)' },
  'release.approve': {
    name: 'hal_release_approve',
    title: 'Approve a release',
    description:
      'Proposes approving a `registered` release so it may be deployed to any active server. Check the module, version and SHA-256 first (`hal_releases_list`).',
    meaning: ({ release }) => RELEASE_STATE_MEANINGS[release.state],
  },
  'deploy.request': {
    name: 'hal_module_deploy',
    title: 'Deploy a module',
    description: `Proposes deploying an approved release (\`module\`@\`version\`) to an active server: it becomes the desired version and a deploy job unpacks it and switches the module's \`current\` link (the previous version is kept for rollback). Never HAL itself (\`hal_self_deploy\`); the release must be \`approved\` (\`release_not_approved\`) and the server \`active\` (\`server_not_active\`). ${QUEUED_NOTE}`,
    meaning: jobMeaning,
  },
  'deploy.rollback': {
    name: 'hal_module_rollback',
    title: 'Roll a module back',
    description: `Proposes rolling a module on a server back to its previous version (the one kept at the last deploy). Never HAL itself. ${QUEUED_NOTE}`,
    meaning: jobMeaning,
  },
  'deploy.reconcile': {
    name: 'hal_module_reconcile',
    title: 'Reconcile modules',
    description: `Proposes bringing one server (\`serverId\`) or every active server (no \`serverId\`) to its desired versions: modules whose actual version differs are deployed or rolled back. ${QUEUED_NOTE}`,
    meaning: jobMeaning,
  },
  'module.health': {
    name: 'hal_module_health',
    title: 'Check module health',
    description: `Proposes a health check of a deployed module on a server (a \`module_health\` job run by the server's agent). ${QUEUED_NOTE}`,
    meaning: jobMeaning,
  },
  'job.control': {
    name: 'hal_job_control',
    title: 'Control a job',
    description:
      'Proposes controlling a job: `cancel` (queued, paused or running — a running job stops at its next step boundary), `stop` (pause a running or queued job between steps), `resume` (a paused job continues), `retry` (a failed or cancelled job → a new linked job). To undo a succeeded deploy use `hal_job_revert`.',
    meaning: jobMeaning,
  },
  'job.revert': {
    name: 'hal_job_revert',
    title: 'Revert a deploy',
    description: `Proposes undoing a succeeded deploy job: a rollback job returns the module on that server to the version before the deploy. Only succeeded deploys revert (\`job_not_revertable\`). ${QUEUED_NOTE}`,
    meaning: jobMeaning,
  },
  'incident.open': {
    name: 'hal_incident_open',
    title: 'Open an incident',
    description:
      'Proposes opening an incident: a short `key` (e.g. `mail.queue-stuck`), a title, a severity (`critical` = down or data at risk, `major`, `minor`, `info`) and optional detail with the evidence you read.',
    meaning: ({ incident }) => INCIDENT_STATE_MEANINGS[incident.state],
  },
  'incident.resolve': {
    name: 'hal_incident_resolve',
    title: 'Resolve an incident',
    description:
      'Proposes resolving an open incident with a resolution note saying what fixed it. Refused with `incident_resolved` if it is already resolved.',
    meaning: ({ incident }) => INCIDENT_STATE_MEANINGS[incident.state],
  },
  'dr.snapshot': {
    name: 'hal_dr_snapshot',
    title: 'Take a DR snapshot',
    description:
      'Proposes taking a disaster-recovery snapshot now: an online backup of HAL’s database, hashed and verified with integrity_check. The answer names the snapshot and whether it verified `ok`.',
    meaning: ({ snapshot }) => DR_VERIFIED_MEANINGS[snapshot.verified],
  },
  'settings.set': [
    {
      name: 'hal_config_set',
      title: 'Set HAL configuration',
      description:
        'Proposes setting the GLOBAL value of one of HAL’s typed configuration keys (e.g. `jobs.concurrency`, `log.level`, `metrics.retention_days`): it applies to HAL and to every server without its own override. `value: null` removes the stored value (back to the default). Unknown keys and wrong types are refused; confidential keys and anything that looks like a credential are refused with `secret_not_allowed`. Runtime effects follow `hal_settings_apply`. For one server’s override use `hal_settings_set`.',
      args: ConfigSetArgs,
      refuseBeforeProposal: true,
    },
    {
      name: 'hal_settings_set',
      title: 'Set a server setting',
      description:
        'Proposes setting ONE SERVER’s override of a per-server typed setting (e.g. `deploy.health_check`, `log.level`, `mail.relay_host` on `serverId`); other servers keep the global value. `value: null` removes the override. Global-only keys are refused (`validation_failed`); confidential keys and values that look like credentials are refused with `secret_not_allowed` — secrets go to the vault, never through tools. For HAL-wide values use `hal_config_set`.',
      args: ServerSettingSetArgs,
      refuseBeforeProposal: true,
    },
  ],
  'settings.secret_set': {
    none: 'secrets go to the vault through the console, never through tools (SPEC §4)',
  },
  'settings.apply': {
    name: 'hal_settings_apply',
    title: 'Apply settings',
    description: `Proposes applying the effective settings: to one server (\`serverId\`), or to HAL itself and every active server (no \`serverId\`). A \`settings_apply\` job validates every stored value, applies HAL’s runtime values and writes each server’s effective values for its agent. ${QUEUED_NOTE}`,
    meaning: jobMeaning,
  },
};

/** The type-erased tool face a registration loop holds (each entry was checked against its operation above). */
type AnyOperationTool = Omit<OperationTool<OperationName>, 'meaning'> & {
  meaning?(result: unknown): string | undefined;
};

/** Every operation tool with its operation. */
export function listOperationTools(): Array<{ operation: OperationName; face: AnyOperationTool }> {
  return (Object.keys(OPERATION_TOOLS) as OperationName[]).flatMap((operation) => {
    const face = OPERATION_TOOLS[operation];
    if (isNoFace(face)) return [];
    return (Array.isArray(face) ? face : [face]).map((one) => ({ operation, face: one as AnyOperationTool }));
  });
}

function toTool(operation: AnyOperation, face: AnyOperationTool): Tool<HalToolContext> {
  return defineTool({
    name: face.name,
    title: face.title,
    description: face.description,
    risk: operation.tier,
    args: face.args ?? (operation.args as ToolArgsSchema),
    // A write proposal names no identifiers to retype (SPEC §5: a card shows them for high actions).
    ...(operation.tier === 'high'
      ? { identifiers: (args: Record<string, unknown>) => operation.identifiers(args) }
      : {}),
    // The three steps (high) and every proposal card (write and high) show this impact.
    impact: async (context: HalToolContext, args: Record<string, unknown>) =>
      (await impactOf(operation, args, context.core)).impact,
    ...(face.refuseBeforeProposal && operation.refuse
      ? {
          precheck: (context: HalToolContext, args: Record<string, unknown>) =>
            operation.refuse?.(context.core, args as never),
        }
      : {}),
    execute: async (context: HalToolContext, args: Record<string, unknown>) => {
      const result = await operation.execute(context.core, context.actor, args);
      const meaning = face.meaning?.(result);
      return meaning === undefined ? result : { ...(result as object), meaning };
    },
  });
}

/** The tools of one tier, in SPEC §4's order. */
function toolsOfTier(tier: 'write' | 'high'): Tool<HalToolContext>[] {
  return listOperationTools()
    .filter(({ face }) => HAL_TOOL_TIERS[face.name] === tier)
    .sort((a, b) => HAL_TOOL_NAMES.indexOf(a.face.name) - HAL_TOOL_NAMES.indexOf(b.face.name))
    .map(({ operation, face }) => toTool(HAL_OPERATIONS[operation], face));
}

/** Every write tool of SPEC §4, in the SPEC's order (each over its operation). */
export function createWriteTools(): Tool<HalToolContext>[] {
  return toolsOfTier('write');
}

/** Every high tool of SPEC §4, in the SPEC's order (each over its operation). */
export function createHighTools(): Tool<HalToolContext>[] {
  return toolsOfTier('high');
}
