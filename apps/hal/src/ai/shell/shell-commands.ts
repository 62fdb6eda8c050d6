import type { CliTool } from '@hal-ai/providers/cli';
import * as v from 'valibot';

/**
 * The login terminal's allow-list (SPEC §8): per tool, each command name maps to a FIXED argv. Nothing an
 * operator sends is ever appended to it — the start body names a command, never an argument, a path or a
 * variable. `claude login` would type "login" into an interactive session (the seed's 0.3.9 fix), so the
 * real login is `claude auth login`. `codex login --device-auth` is offered because `codex login` waits for
 * a browser callback on the server's own localhost, which an operator elsewhere cannot reach.
 */
export const SHELL_COMMANDS = {
  claude: {
    login: ['auth', 'login'],
    login_console: ['auth', 'login', '--console'],
    logout: ['auth', 'logout'],
    status: ['auth', 'status'],
    version: ['--version'],
    interactive: [],
  },
  codex: {
    login: ['login'],
    login_device: ['login', '--device-auth'],
    logout: ['logout'],
    status: ['login', 'status'],
    version: ['--version'],
    interactive: [],
  },
} as const satisfies Record<CliTool, Record<string, readonly string[]>>;

/** A tool the terminal runs. */
export type ShellTool = keyof typeof SHELL_COMMANDS;

/** The command that logs a tool in: what a `cli_not_logged_in` check opens the terminal on. */
export const SHELL_LOGIN_COMMAND: Record<ShellTool, string> = { claude: 'login', codex: 'login' };

/** The terminal size when the browser sends none (SPEC §8: 100×30). */
export const SHELL_DEFAULT_SIZE = { cols: 100, rows: 30 } as const;

const columns = v.pipe(v.number(), v.integer(), v.minValue(20), v.maxValue(500));
const rows = v.pipe(v.number(), v.integer(), v.minValue(5), v.maxValue(200));

/** The terminal size of a start or a resize. */
export const shellSizeSchema = v.strictObject({ cols: columns, rows });

/**
 * `POST /ops/api/ai/shell`: a strict object, so an extra field (`args`, `env`, `cwd`, …) is refused rather
 * than ignored. `connectionId` names the local CLI connection to check again when the session ends.
 */
export const shellStartSchema = v.pipe(
  v.strictObject({
    tool: v.picklist(Object.keys(SHELL_COMMANDS) as ShellTool[], 'must be claude or codex'),
    command: v.pipe(v.string(), v.maxLength(40)),
    cols: v.optional(columns),
    rows: v.optional(rows),
    connectionId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  }),
  v.forward(
    v.check(
      (input) => Object.hasOwn(SHELL_COMMANDS[input.tool], input.command),
      'is not an allowed command for this tool',
    ),
    ['command'],
  ),
);

/** A parsed start request. */
export type ShellStartInput = v.InferOutput<typeof shellStartSchema>;

/** `POST …/shell/:id/input`: the keys, sent to the PTY as they are. */
export const shellInputSchema = v.strictObject({ data: v.string() });

/** The fixed argv of an allowed command (the schema has checked that it exists). */
export function shellCommandArgs(tool: ShellTool, command: string): readonly string[] {
  const table: Record<string, readonly string[]> = SHELL_COMMANDS[tool];
  const args = table[command];
  if (!args) throw new Error(`not an allowed command: ${tool} ${command}`);
  return args;
}
