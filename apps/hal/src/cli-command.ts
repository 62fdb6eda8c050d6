import { parseArgs } from 'node:util';

/** What a command may touch: its arguments, the environment and the three streams. */
export interface CliContext {
  /** Arguments after the command words (e.g. `[username]` for `admin create-operator`). */
  args: string[];
  env: NodeJS.ProcessEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); long-running commands await it. */
  stopSignal: Promise<string>;
}

/** One option of a command, as `node:util` `parseArgs` takes it, with the line `--help` prints. */
export interface CliOption {
  type: 'string' | 'boolean';
  /** e.g. `<port>` — shown after the flag in the help text. */
  value?: string;
  description: string;
}

/** One `hal` subcommand. `run` returns the exit code. */
export interface CliCommand {
  /** e.g. `admin create-operator <username>`. */
  usage: string;
  summary: string;
  /**
   * The flags the command takes. When present, the dispatcher parses them strictly before `run`: an unknown
   * flag or a flag without its value is a usage error (exit 2) and `run` never starts. Commands that parse
   * their own arguments (e.g. `agent`) leave it out.
   */
  options?: Readonly<Record<string, CliOption>>;
  /** How many positional arguments the command takes (default none when `options` is set). */
  positionals?: { min: number; max: number };
  /** Extra lines for `hal <command> --help` (what the command reads, examples). */
  details?: string;
  run(context: CliContext, values: Readonly<Record<string, string | boolean | undefined>>): Promise<number>;
}

/** A usage mistake: printed with the command's help, exit code 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/**
 * Parses a command's arguments strictly (`parseArgs` with `strict: true`) against its declared options.
 *
 * @throws CliUsageError for an unknown flag, a missing value, or the wrong number of positionals.
 */
export function parseCommandArgs(
  command: CliCommand,
  args: readonly string[],
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const options = Object.fromEntries(
    Object.entries(command.options ?? {}).map(([name, option]) => [name, { type: option.type }]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    throw new CliUsageError(
      parsed.positionals.length > max
        ? `unexpected argument "${parsed.positionals[max] ?? ''}"`
        : 'missing argument',
    );
  }
  return {
    values: parsed.values as Record<string, string | boolean | undefined>,
    positionals: parsed.positionals,
  };
}

/** The `hal <command> --help` text: usage, summary, flags and details. */
export function commandHelp(command: CliCommand): string {
  const flags = Object.entries(command.options ?? {}).map(
    ([name, option]) => [`--${name}${option.value ? ` ${option.value}` : ''}`, option.description] as const,
  );
  flags.push(['--help', 'show this help']);
  const width = Math.max(...flags.map(([flag]) => flag.length));
  const lines = flags.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
  return `Usage: hal ${command.usage}\n\n${command.summary}\n\nOptions:\n${lines.join('\n')}\n${
    command.details ? `\n${command.details.trimEnd()}\n` : ''
  }`;
}
