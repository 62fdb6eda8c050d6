import { HalError } from '@hal-ai/spec';

/** One argument of a slash command. */
export interface SlashCommandArgument {
  name: string;
  required: boolean;
  /** Takes the rest of the line (free text such as a reason or a title). */
  rest?: boolean;
}

/** A slash command as `GET /ops/api/ai/commands` lists it. */
export interface SlashCommandDefinition {
  /** The name without the slash. */
  name: string;
  /** Usage line, e.g. `/deploy <module> <version> [server]`. */
  usage: string;
  args: SlashCommandArgument[];
  description: string;
  /** `local` commands never call a model; `prompt` commands expand into an instruction for the model. */
  kind: 'local' | 'prompt';
  /** Needs a direct (1:1) room. */
  directRoomOnly?: boolean;
}

const rule =
  'Approval rules are unchanged: read tools run now; write and high tools become proposals that run only after the operator approves them.';

type Values = Record<string, string | undefined>;

const PROMPTS: Record<string, (values: Values) => string> = {
  status: () =>
    'Give the operator a short status of HAL: use hal_overview and hal_health, then say what needs attention first.',
  health: () => 'Check HAL health with hal_health and explain any component that is not healthy.',
  servers: (values) =>
    `List the servers with hal_servers_list${values.role ? ` (role "${values.role}")` : ''} and point out any that are not active.`,
  server: (values) =>
    `Show server "${values.id}" with hal_server_get and hal_server_metrics, and explain its state and recent metrics.`,
  jobs: (values) =>
    `List the jobs with hal_jobs_list${values.state ? ` (state "${values.state}")` : ''} and summarise failures or stuck jobs.`,
  job: (values) =>
    `Show job "${values.id}" with hal_job_get, explain its steps and logs, and what to do next if it failed.`,
  releases: () => 'List the releases with hal_releases_list and say which are approved, pending or deployed.',
  incidents: () => 'List the incidents with hal_incidents_list and summarise the open ones by severity.',
  audit: (values) =>
    `List recent audit entries with hal_audit_list${values.prefix ? ` (action prefix "${values.prefix}")` : ''} and summarise them.`,
  dr: () =>
    'Report the disaster-recovery status with hal_dr_status: last snapshot, its age and whether it verified.',
  emergency: () => 'List the emergency-recovery procedures with hal_emergency_list and their states.',
  order: (values) => `The operator gives this order: ${values.text}\nCarry it out with your tools.`,
  deploy: (values) =>
    `Propose deploying module "${values.module}" version "${values.version}"${values.server ? ` to server "${values.server}"` : ''} with hal_module_deploy. Check the release and the target first with read tools.`,
  rollback: (values) =>
    `Propose rolling back module "${values.module}"${values.server ? ` on server "${values.server}"` : ''} with hal_module_rollback. Check the current deployment first with read tools.`,
  isolate: (values) =>
    `Propose isolating server "${values.server}" with hal_server_isolate, reason: ${values.reason}. Check the server first with read tools.`,
  incident: (values) =>
    `Propose opening incident "${values.key}" titled "${values.title}" with hal_incident_open; choose a severity from what you see.`,
};

const argument = (name: string, required: boolean, rest = false): SlashCommandArgument =>
  rest ? { name, required, rest } : { name, required };

/** Every slash command (SPEC §7), in the order `/help` lists them. */
export const SLASH_COMMANDS: readonly SlashCommandDefinition[] = [
  { name: 'help', usage: '/help', args: [], description: 'List the slash commands.', kind: 'local' },
  {
    name: 'tools',
    usage: '/tools',
    args: [],
    description: 'List the tools enabled for the models here.',
    kind: 'local',
  },
  {
    name: 'model',
    usage: '/model <name>',
    args: [argument('name', true)],
    description: "Switch this room's connection to another checked model.",
    kind: 'local',
    directRoomOnly: true,
  },
  {
    name: 'reset',
    usage: '/reset',
    args: [],
    description: 'Start a new conversation: clear the history and cancel pending proposals.',
    kind: 'local',
  },
  { name: 'status', usage: '/status', args: [], description: 'Overall HAL status.', kind: 'prompt' },
  { name: 'health', usage: '/health', args: [], description: 'HAL health check.', kind: 'prompt' },
  {
    name: 'servers',
    usage: '/servers [role]',
    args: [argument('role', false)],
    description: 'List servers.',
    kind: 'prompt',
  },
  {
    name: 'server',
    usage: '/server <id>',
    args: [argument('id', true)],
    description: 'One server and its metrics.',
    kind: 'prompt',
  },
  {
    name: 'jobs',
    usage: '/jobs [state]',
    args: [argument('state', false)],
    description: 'List jobs.',
    kind: 'prompt',
  },
  {
    name: 'job',
    usage: '/job <id>',
    args: [argument('id', true)],
    description: 'One job and its logs.',
    kind: 'prompt',
  },
  { name: 'releases', usage: '/releases', args: [], description: 'List releases.', kind: 'prompt' },
  { name: 'incidents', usage: '/incidents', args: [], description: 'List incidents.', kind: 'prompt' },
  {
    name: 'audit',
    usage: '/audit [prefix]',
    args: [argument('prefix', false)],
    description: 'Recent audit entries.',
    kind: 'prompt',
  },
  { name: 'dr', usage: '/dr', args: [], description: 'Disaster-recovery status.', kind: 'prompt' },
  {
    name: 'emergency',
    usage: '/emergency',
    args: [],
    description: 'Emergency-recovery procedures.',
    kind: 'prompt',
  },
  {
    name: 'order',
    usage: '/order <text>',
    args: [argument('text', true, true)],
    description: 'Give the models an order.',
    kind: 'prompt',
  },
  {
    name: 'deploy',
    usage: '/deploy <module> <version> [server]',
    args: [argument('module', true), argument('version', true), argument('server', false)],
    description: 'Propose a deployment.',
    kind: 'prompt',
  },
  {
    name: 'rollback',
    usage: '/rollback <module> [server]',
    args: [argument('module', true), argument('server', false)],
    description: 'Propose a rollback.',
    kind: 'prompt',
  },
  {
    name: 'isolate',
    usage: '/isolate <server> <reason>',
    args: [argument('server', true), argument('reason', true, true)],
    description: 'Propose isolating a server.',
    kind: 'prompt',
  },
  {
    name: 'incident',
    usage: '/incident <key> <title>',
    args: [argument('key', true), argument('title', true, true)],
    description: 'Propose opening an incident.',
    kind: 'prompt',
  },
];

/** A parsed slash command (not yet checked against {@link SLASH_COMMANDS}). */
export interface ParsedSlashCommand {
  /** Lower-cased name without the slash. */
  command: string;
  /** Whitespace-separated arguments (double quotes group words). */
  args: string[];
  /** Everything after the name, trimmed. */
  rawArgs: string;
}

/**
 * Parses `/name args…`. Returns `undefined` for text that is not a command (does not start with
 * `/` followed by a name and then whitespace or the end — so `/etc/hosts is broken` is text).
 *
 * @example
 * parseSlashCommand('/deploy web 1.2.0'); // { command: 'deploy', args: ['web', '1.2.0'], rawArgs: 'web 1.2.0' }
 */
export function parseSlashCommand(text: string): ParsedSlashCommand | undefined {
  const match = /^\s*\/([A-Za-z][A-Za-z0-9_-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match?.[1]) return undefined;
  const rawArgs = (match[2] ?? '').trim();
  const args: string[] = [];
  for (const token of rawArgs.matchAll(/"([^"]*)"|(\S+)/g)) args.push(token[1] ?? token[2] ?? '');
  return { command: match[1].toLowerCase(), args, rawArgs };
}

/** The outcome of {@link expandSlashCommand}. */
export interface ExpandedSlashCommand {
  definition: SlashCommandDefinition;
  /** Argument values by name. */
  values: Record<string, string>;
  /** The instruction for the model (prompt commands only). */
  expansion?: string;
}

/** Takes the rest of the raw text after skipping `skip` tokens (for a rest argument). */
function restAfter(rawArgs: string, skip: number): string {
  let rest = rawArgs;
  for (let index = 0; index < skip; index += 1) rest = rest.replace(/^\s*("[^"]*"|\S+)/, '');
  return rest.trim();
}

/**
 * Checks a parsed command and expands a prompt command into the instruction the model receives
 * (the history keeps the operator's original text). Throws `unknown_command`,
 * `command_args_required`, or `command_needs_direct_room` (`/model` in the unified room).
 *
 * @example
 * expandSlashCommand(parseSlashCommand('/jobs failed')!, { roomKind: 'unified' }).expansion;
 */
export function expandSlashCommand(
  parsed: ParsedSlashCommand,
  options: { roomKind: 'unified' | 'direct' | 'debate' },
): ExpandedSlashCommand {
  const definition = SLASH_COMMANDS.find((candidate) => candidate.name === parsed.command);
  if (!definition) {
    throw new HalError('unknown_command', `Unknown command /${parsed.command}`, {
      details: { commands: SLASH_COMMANDS.map((command) => `/${command.name}`) },
    });
  }
  if (definition.directRoomOnly && options.roomKind !== 'direct') {
    throw new HalError('command_needs_direct_room', `/${definition.name} works only in a model's own room`);
  }
  const values: Record<string, string> = {};
  definition.args.forEach((arg, index) => {
    const value = arg.rest ? restAfter(parsed.rawArgs, index) : parsed.args[index];
    if (value !== undefined && value.length > 0) values[arg.name] = value;
  });
  const missing = definition.args.filter((arg) => arg.required && values[arg.name] === undefined);
  if (missing.length > 0) {
    throw new HalError('command_args_required', `Usage: ${definition.usage}`, {
      details: { usage: definition.usage, missing: missing.map((arg) => arg.name) },
    });
  }
  const prompt = PROMPTS[definition.name];
  if (definition.kind === 'local' || !prompt) return { definition, values };
  return {
    definition,
    values,
    expansion: `[Slash command ${definition.usage.split(' ')[0]}] ${prompt(values)}\n${rule}`,
  };
}
