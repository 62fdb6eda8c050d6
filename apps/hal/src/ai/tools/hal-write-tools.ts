import { defineTool, type Tool } from '@hal-ai/tools';
import * as v from 'valibot';
import {
  IncidentOpenArgs,
  IncidentResolveArgs,
  JOB_CONTROL_ACTIONS,
  JobControlArgs,
  ModuleHealthArgs,
  NoArgs,
  ServerCreateArgs,
  ServerIdArgs,
  ServerMaintenanceArgs,
} from '../../core/core-schemas.js';
import type { HalToolContext } from './hal-tool-context.js';
import {
  DR_VERIFIED_MEANINGS,
  INCIDENT_STATE_MEANINGS,
  JOB_STATE_MEANINGS,
  SERVER_STATE_MEANINGS,
} from './hal-tool-meanings.js';

/*
 * Write tools become proposals: they run only after an operator approves them with a recent password
 * re-entry. Each calls the core function the matching console route calls, with the same arguments.
 */

/** Job controls a write proposal may carry; `revert` is high risk and has its own tool. */
export const JOB_WRITE_CONTROLS = JOB_CONTROL_ACTIONS.filter(
  (action): action is Exclude<(typeof JOB_CONTROL_ACTIONS)[number], 'revert'> => action !== 'revert',
);

/** `hal_job_control` arguments: the core's job control schema without `revert`. */
export const JobWriteControlArgs = v.strictObject({
  ...JobControlArgs.entries,
  action: v.picklist(JOB_WRITE_CONTROLS),
});

const QUEUED_NOTE = 'The answer is the queued job: follow it with `hal_job_get` until it ends.';

/** Every write tool of SPEC §4, in the SPEC's order. */
export function createWriteTools(): Tool<HalToolContext>[] {
  return [
    defineTool({
      name: 'hal_server_create',
      title: 'Register a server',
      description:
        'Proposes registering a new remote server by host name and role. It starts `pending`: it receives nothing until an operator approves it (`hal_server_approve`) and its agent connects with a token an operator issues in the console.',
      risk: 'write',
      args: ServerCreateArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.servers.create(context.actor, args);
        return { ...result, meaning: SERVER_STATE_MEANINGS[result.server.state] };
      },
    }),
    defineTool({
      name: 'hal_server_approve',
      title: 'Approve a server',
      description:
        'Proposes approving a `pending` server so it becomes `active` and may receive deployments. Refused with `server_not_pending` for any other state.',
      risk: 'write',
      args: ServerIdArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.servers.approve(context.actor, args);
        return { ...result, meaning: SERVER_STATE_MEANINGS[result.server.state] };
      },
    }),
    defineTool({
      name: 'hal_server_maintenance',
      title: 'Maintenance mode',
      description:
        'Proposes putting an active server into maintenance (`on: true`: no new deployments while someone works on it) or bringing it back to `active` (`on: false`). The gentler alternative to isolation.',
      risk: 'write',
      args: ServerMaintenanceArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.servers.setMaintenance(context.actor, args);
        return { ...result, meaning: SERVER_STATE_MEANINGS[result.server.state] };
      },
    }),
    defineTool({
      name: 'hal_incident_open',
      title: 'Open an incident',
      description:
        'Proposes opening an incident: a short `key` (e.g. `mail.queue-stuck`), a title, a severity (`critical` = down or data at risk, `major`, `minor`, `info`) and optional detail with the evidence you read.',
      risk: 'write',
      args: IncidentOpenArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.incidents.open(context.actor, args);
        return { ...result, meaning: INCIDENT_STATE_MEANINGS[result.incident.state] };
      },
    }),
    defineTool({
      name: 'hal_incident_resolve',
      title: 'Resolve an incident',
      description:
        'Proposes resolving an open incident with a resolution note saying what fixed it. Refused with `incident_resolved` if it is already resolved.',
      risk: 'write',
      args: IncidentResolveArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.incidents.resolve(context.actor, args);
        return { ...result, meaning: INCIDENT_STATE_MEANINGS[result.incident.state] };
      },
    }),
    defineTool({
      name: 'hal_job_control',
      title: 'Control a job',
      description:
        'Proposes controlling a job: `cancel` (queued, paused or running — a running job stops at its next step boundary), `stop` (pause a running or queued job between steps), `resume` (a paused job continues), `retry` (a failed or cancelled job → a new linked job). To undo a succeeded deploy use `hal_job_revert`.',
      risk: 'write',
      args: JobWriteControlArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.jobs.control(context.actor, args);
        return { ...result, meaning: JOB_STATE_MEANINGS[result.job.state] };
      },
    }),
    defineTool({
      name: 'hal_module_health',
      title: 'Check module health',
      description: `Proposes a health check of a deployed module on a server (a \`module_health\` job run by the server's agent). ${QUEUED_NOTE}`,
      risk: 'write',
      args: ModuleHealthArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.deployments.health(context.actor, args);
        return { ...result, meaning: JOB_STATE_MEANINGS[result.job.state] };
      },
    }),
    defineTool({
      name: 'hal_dr_snapshot',
      title: 'Take a DR snapshot',
      description:
        'Proposes taking a disaster-recovery snapshot now: an online backup of HAL’s database, hashed and verified with integrity_check. The answer names the snapshot and whether it verified `ok`.',
      risk: 'write',
      args: NoArgs,
      execute: async (context: HalToolContext) => {
        const result = await context.core.dr.snapshot(context.actor);
        return { ...result, meaning: DR_VERIFIED_MEANINGS[result.snapshot.verified] };
      },
    }),
  ];
}
