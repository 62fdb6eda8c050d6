import { HalError } from '@hal-ai/spec';
import { defineTool, type Tool } from '@hal-ai/tools';
import * as v from 'valibot';
import {
  IncidentsListArgs,
  JobIdArgs,
  JobsListArgs,
  NoArgs,
  ReleasesListArgs,
  ServerIdArgs,
  ServerMetricsArgs,
  ServersListArgs,
  SettingsGetArgs,
} from '../../domain/core/core-schemas.js';
import { PageSchema } from '../../domain/core/core-support.js';
import type { HalToolContext } from './hal-tool-context.js';
import {
  ACTION_STATUS_MEANINGS,
  DR_VERIFIED_MEANINGS,
  EMERGENCY_STATE_MEANINGS,
  INCIDENT_SEVERITY_MEANINGS,
  INCIDENT_STATE_MEANINGS,
  JOB_STATE_MEANINGS,
  JOB_TYPE_MEANINGS,
  MAIL_STATE_MEANINGS,
  meaningsOf,
  RELEASE_STATE_MEANINGS,
  SERVER_STATE_MEANINGS,
} from './hal-tool-meanings.js';
import { PageArgs, pageOfList } from './hal-tool-paging.js';

/*
 * Read tools run at once when a model calls them. Each returns exactly what the matching console read
 * (`GET /ops/api/hal/...`) returns, plus `meanings`: one line per state that occurs in the result.
 */

/** `hal_audit_list` arguments: the console's `?prefix=&limit=&cursor=`. */
export const AuditListArgs = v.strictObject({
  prefix: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z0-9_.]{1,100}$/, 'a dotted action prefix such as server. or job.')),
  ),
  ...PageSchema,
});

/** `hal_action_status` arguments. */
export const ActionIdArgs = v.strictObject({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) });

const LIST_NOTE =
  'Paged: `limit` (default 50, at most 200) and `cursor` (pass the previous answer’s `nextCursor`; `nextCursor: null` means there is no more).';

function requireAudit(context: HalToolContext): NonNullable<HalToolContext['audit']> {
  if (!context.audit) throw new HalError('internal_error', 'The audit log is not available to tools here');
  return context.audit;
}

/** Every read tool of SPEC §4, in the SPEC's order. */
export function createReadTools(): Tool<HalToolContext>[] {
  return [
    defineTool({
      name: 'hal_skill',
      title: 'HAL skill document',
      description:
        'Returns HAL’s skill document (Markdown): what every server, job, release, incident, mail, emergency and DR state means, every error code, and the rules you follow. Read it again when a state or error code is unclear.',
      risk: 'read',
      args: NoArgs,
      idempotent: true,
      execute: async (context: HalToolContext) => ({ skill: await context.skill(), format: 'markdown' }),
    }),
    defineTool({
      name: 'hal_health',
      title: 'HAL health',
      description:
        'HAL’s own health, as `GET /api/health` reports it to a signed-in operator, read from the database (the same from every HAL instance and from the MCP server): `version`, `uptimeS` (seconds HAL has been serving), `db` (`ok` or `error`), `jobs` (all job runners together: status, running, queued, concurrency, lastRun) and `instances` (each serving HAL process: id, host, pid, version, startedAt, heartbeatAt, uptimeS, its job runner). Use it first when HAL itself seems slow or broken.',
      risk: 'read',
      args: NoArgs,
      execute: async (context: HalToolContext) => {
        if (!context.health)
          throw new HalError('internal_error', 'HAL health is not available to tools here');
        return context.health();
      },
    }),
    defineTool({
      name: 'hal_overview',
      title: 'Console overview',
      description:
        'The console’s first screen in one call: servers, jobs, releases and mail services counted by state, open incidents by severity, the 5 most recent jobs, DR snapshot age and verification, the local host’s latest metrics and the job runner. Start here to get your bearings; then drill down with the list tools.',
      risk: 'read',
      args: NoArgs,
      execute: async (context: HalToolContext) => {
        const overview = await context.core.overview();
        return {
          overview,
          meanings: {
            servers: meaningsOf(SERVER_STATE_MEANINGS, Object.keys(overview.servers)),
            jobs: meaningsOf(JOB_STATE_MEANINGS, Object.keys(overview.jobs)),
            releases: meaningsOf(RELEASE_STATE_MEANINGS, Object.keys(overview.releases)),
            mailServices: meaningsOf(MAIL_STATE_MEANINGS, Object.keys(overview.mailServices)),
            incidents: meaningsOf(INCIDENT_SEVERITY_MEANINGS, Object.keys(overview.incidents.open)),
            dr: meaningsOf(DR_VERIFIED_MEANINGS, [overview.dr.verified]),
          },
        };
      },
    }),
    defineTool({
      name: 'hal_servers_list',
      title: 'List servers',
      description: `Servers HAL manages (oldest first), each with id, name, role, kind (\`local\` = the machine HAL runs on, \`remote\` = a server running \`hal agent\`), state and timestamps. Deleted servers appear only when you filter \`state: "deleted"\`. ${LIST_NOTE}`,
      risk: 'read',
      args: ServersListArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.servers.list(args);
        return {
          ...result,
          meanings: meaningsOf(
            SERVER_STATE_MEANINGS,
            result.servers.map((s) => s.state),
          ),
        };
      },
    }),
    defineTool({
      name: 'hal_server_get',
      title: 'One server',
      description:
        'One server by id: its record (state, isolatedReason, approval), its modules with desired, actual and previous versions (actual ≠ desired means a deploy or reconcile is due), and its latest stored metrics sample. Use `hal_server_metrics` for a fresh sample and history.',
      risk: 'read',
      args: ServerIdArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.servers.get(args);
        return { ...result, meaning: SERVER_STATE_MEANINGS[result.server.state] };
      },
    }),
    defineTool({
      name: 'hal_server_metrics',
      title: 'Server metrics',
      description:
        'A fresh metrics sample of a server (when its agent is connected and it is active or in maintenance) as `current`, and stored samples newest first as `history` (`limit`, default 50). Fields: cpuPercent (0–100), memory used/total bytes, disk free/total bytes of the data folder, load (1/5/15-minute averages; compare with the core count), uptimeS (a drop means a reboot). Disk under 10 % free is urgent.',
      risk: 'read',
      args: ServerMetricsArgs,
      execute: (context: HalToolContext, args) => context.core.servers.metrics(args),
    }),
    defineTool({
      name: 'hal_releases_list',
      title: 'List releases',
      description: `Module releases, newest first, with module, version, SHA-256, size and state (\`registered\` = uploaded, not yet deployable; \`approved\` = may be deployed; \`revoked\`). Filter by \`module\` or \`state\`. ${LIST_NOTE}`,
      risk: 'read',
      args: ReleasesListArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.releases.list(args);
        return {
          ...result,
          meanings: meaningsOf(
            RELEASE_STATE_MEANINGS,
            result.releases.map((r) => r.state),
          ),
        };
      },
    }),
    defineTool({
      name: 'hal_jobs_list',
      title: 'List jobs',
      description: `Jobs, newest first: deploys, rollbacks, reconciles, settings applies and module health checks, with type, state, target, arguments, error and timestamps. Filter by \`state\`, \`type\` or \`serverId\` (the jobs aimed at that one server). Use \`hal_job_get\` for a job's step logs. ${LIST_NOTE}`,
      risk: 'read',
      args: JobsListArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.jobs.list(args);
        return {
          ...result,
          meanings: {
            states: meaningsOf(
              JOB_STATE_MEANINGS,
              result.jobs.map((j) => j.state),
            ),
            types: meaningsOf(
              JOB_TYPE_MEANINGS,
              result.jobs.map((j) => j.type),
            ),
          },
        };
      },
    }),
    defineTool({
      name: 'hal_job_get',
      title: 'One job',
      description:
        'One job by id with its steps and each step’s log: the evidence of what a deploy, rollback or apply actually did. `error` names why a failed job failed (`interrupted` = HAL restarted while it ran); `parentJobId` links retries and reverts to their origin.',
      risk: 'read',
      args: JobIdArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.jobs.get(args);
        return {
          ...result,
          meaning: JOB_STATE_MEANINGS[result.job.state],
        };
      },
    }),
    defineTool({
      name: 'hal_incidents_list',
      title: 'List incidents',
      description: `Incidents, newest first, with key, title, severity (\`critical\`, \`major\`, \`minor\`, \`info\`), state (\`open\` or \`resolved\`), who opened and resolved them and the resolution. Filter by \`state\` or \`severity\`. ${LIST_NOTE}`,
      risk: 'read',
      args: IncidentsListArgs,
      execute: async (context: HalToolContext, args) => {
        const result = await context.core.incidents.list(args);
        return {
          ...result,
          meanings: {
            severities: meaningsOf(
              INCIDENT_SEVERITY_MEANINGS,
              result.incidents.map((i) => i.severity),
            ),
            states: meaningsOf(
              INCIDENT_STATE_MEANINGS,
              result.incidents.map((i) => i.state),
            ),
          },
        };
      },
    }),
    defineTool({
      name: 'hal_audit_list',
      title: 'Audit log',
      description: `HAL’s append-only audit log, newest first: who (\`operator:<id>\`, \`ai:<connection>\`, \`mcp:<client>\`, \`system\`) did what (dotted action such as \`server.isolate\`), to which target, with before/after details (secrets redacted). Filter with \`prefix\` (e.g. \`deploy.\`, \`settings.\`). ${LIST_NOTE}`,
      risk: 'read',
      args: AuditListArgs,
      execute: (context: HalToolContext, args) =>
        requireAudit(context).list({
          ...(args.limit === undefined ? {} : { limit: args.limit }),
          ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
          ...(args.prefix === undefined ? {} : { actionPrefix: args.prefix }),
        }),
    }),
    defineTool({
      name: 'hal_mail_services_list',
      title: 'Mail services',
      description: `Mail services HAL watches, by name, with kind, state (\`ok\`, \`degraded\`, \`down\`), detail and when it was last checked. ${LIST_NOTE}`,
      risk: 'read',
      args: PageArgs,
      execute: async (context: HalToolContext, args) => {
        const { mailServices } = await context.core.mail.list();
        const page = pageOfList(mailServices, (m) => m.name, args);
        return {
          mailServices: page.items,
          nextCursor: page.nextCursor,
          meanings: meaningsOf(
            MAIL_STATE_MEANINGS,
            page.items.map((m) => m.state),
          ),
        };
      },
    }),
    defineTool({
      name: 'hal_emergency_list',
      title: 'Emergency procedures',
      description: `Emergency-recovery procedures, by key, with title, state (\`ready\`, \`running\`, \`completed\`, \`failed\`) and their steps. Only operators start them; cite the steps when advising. ${LIST_NOTE}`,
      risk: 'read',
      args: PageArgs,
      execute: async (context: HalToolContext, args) => {
        const { procedures } = await context.core.emergency.list();
        const page = pageOfList(procedures, (p) => p.key, args);
        return {
          procedures: page.items,
          nextCursor: page.nextCursor,
          meanings: meaningsOf(
            EMERGENCY_STATE_MEANINGS,
            page.items.map((p) => p.state),
          ),
        };
      },
    }),
    defineTool({
      name: 'hal_dr_status',
      title: 'DR status',
      description:
        'Disaster-recovery snapshots of HAL’s database: how many, the last one, its age in seconds (`lastAgeS`), its verification (`ok` = passes integrity_check, `failed`, `unknown`) and the 10 most recent. A last snapshot older than a day (86400 s) or not `ok` deserves a `hal_dr_snapshot` proposal.',
      risk: 'read',
      args: NoArgs,
      execute: async (context: HalToolContext) => {
        const dr = await context.core.dr.status();
        return { dr, meaning: DR_VERIFIED_MEANINGS[dr.verified] };
      },
    }),
    defineTool({
      name: 'hal_changelog',
      title: 'HAL changelog',
      description: `HAL’s version history, newest first: each version with its date and list of changes. Use it to tell what changed in HAL itself. ${LIST_NOTE}`,
      risk: 'read',
      args: PageArgs,
      idempotent: true,
      execute: async (context: HalToolContext, args) => {
        const { versions } = await context.core.changelog();
        const page = pageOfList(versions, (entry) => entry.version, args);
        return { versions: page.items, nextCursor: page.nextCursor };
      },
    }),
    defineTool({
      name: 'hal_settings_get',
      title: 'Settings',
      description:
        'Effective typed settings: each key with its type, description, default, effective value and where it comes from (`source`: `default`, `global`, or `server` for a per-server override). Pass `serverId` for one server’s effective values, `key` for one key or a dotted group (`mail` → `mail.*`). Confidential values (kept in the vault) show only whether they are set (`value` is the mask or null) and can never be read or set through tools. `lastApply` is the newest `settings_apply` job for that scope (its `state`, `finishedAt`, `error`), or null if settings were never applied.',
      risk: 'read',
      args: SettingsGetArgs,
      execute: (context: HalToolContext, args) => context.core.settings.get(args),
    }),
    defineTool({
      name: 'hal_action_status',
      title: 'Proposal status',
      description:
        'The state of one of your proposals (a write/high tool call waiting for an operator) by its action id: `proposed`, `executing`, `executed` (then `result` holds HAL’s evidence), `failed` (`error` says why), `rejected` or `cancelled`. Only `executed` means the change happened.',
      risk: 'read',
      args: ActionIdArgs,
      execute: async (context: HalToolContext, { id }) => {
        const action = await context.actions.get(id);
        if (!action) throw new HalError('not_found', `No action with id ${id}`, { details: { id } });
        return { action, meaning: ACTION_STATUS_MEANINGS[action.status] };
      },
    }),
    defineTool({
      name: 'hal_actions_pending',
      title: 'Pending proposals',
      description: `Proposals still waiting for an operator (status \`proposed\`), oldest first, with tool, arguments, risk and the identifiers the operator must retype. Check it before proposing the same change twice. ${LIST_NOTE}`,
      risk: 'read',
      args: PageArgs,
      execute: async (context: HalToolContext, args) => {
        const page = pageOfList(await context.actions.pending(), (a) => a.id, args);
        return { actions: page.items, nextCursor: page.nextCursor };
      },
    }),
  ];
}
