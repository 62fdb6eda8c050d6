#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HalError } from '@hal-ai/spec';
import { mcpCliCommand } from './ai/mcp/mcp-command.js';
import {
  type CliCommand,
  type CliContext,
  CliUsageError,
  commandHelp,
  parseCommandArgs,
} from './cli-command.js';
import { doctorCliCommand } from './cli-doctor.js';
import { environmentHelp } from './cli-environment.js';
import { agentCliCommand } from './domain/agents/agent-command.js';
import { createAuditLog } from './domain/audit/audit-log.js';
import { createOperator, resetOperatorPassword } from './domain/auth/auth-operators.js';
import { systemClock } from './domain/core/clock.js';
import { restoreSnapshot } from './domain/core/core-dr-restore.js';
import { HAL_VERSION, type HalConfig, loadConfig } from './platform/config.js';
import { preparePrivateDataDir } from './platform/data-dir.js';
import { recordServingDatabaseUrl } from './platform/database-url-file.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { createLogger } from './platform/logger.js';
import { databasePath, startServer } from './server.js';

export type { CliCommand, CliContext } from './cli-command.js';

/** Loads the config or prints why not; commands return 1 on a bad environment. */
function configOrExit(context: CliContext, overrides: NodeJS.ProcessEnv = {}): HalConfig | null {
  try {
    // Flags win over the environment; they go through the same validation as the variables they stand for.
    return loadConfig({ ...context.env, ...overrides });
  } catch (error) {
    context.stderr.write(`hal: ${error instanceof Error ? error.message : String(error)}\n`);
    return null;
  }
}

async function withDatabase(
  context: CliContext,
  work: (db: ReturnType<typeof openDatabase>) => Promise<number>,
) {
  const config = configOrExit(context);
  if (config === null) return 1;
  preparePrivateDataDir(config.dataDir);
  const database = openDatabase(databasePath(config.dataDir));
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

async function setPassword(context: CliContext, mode: 'create' | 'reset'): Promise<number> {
  const username = context.args[0] ?? '';
  return withDatabase(context, async ({ db }) => {
    const settings = { db, clock: systemClock };
    const { operator, password } =
      mode === 'create'
        ? await createOperator(settings, username)
        : await resetOperatorPassword(settings, username);
    await createAuditLog({ db, clock: systemClock }).append({
      actor: 'system',
      action: mode === 'create' ? 'operator.create' : 'operator.reset_password',
      target: `operator:${operator.id}`,
      details: { username, via: 'cli' },
    });
    context.stdout.write(`operator: ${operator.username}\npassword: ${password}\n`);
    return 0;
  });
}

/**
 * The `hal` subcommands, keyed by their command words. Other areas add theirs here
 * (`agent …`, `mcp`) with one entry each; the dispatcher picks the longest matching key.
 */
export const commands: Record<string, CliCommand> = {
  serve: {
    usage: 'serve [--port <port>] [--host <address>] [--data <dir>]',
    summary: 'Start HAL (creates the data folder and the first operator on the first run)',
    options: {
      port: { type: 'string', value: '<port>', description: 'listen port, 0 picks a free one (HAL_PORT)' },
      host: { type: 'string', value: '<address>', description: 'listen address (HAL_HOST)' },
      data: { type: 'string', value: '<dir>', description: 'data folder (HAL_DATA_DIR)' },
    },
    async run(context, values) {
      const overrides: NodeJS.ProcessEnv = {};
      if (typeof values.port === 'string') overrides.HAL_PORT = values.port;
      if (typeof values.host === 'string') overrides.HAL_HOST = values.host;
      if (typeof values.data === 'string') overrides.HAL_DATA_DIR = values.data;
      const config = configOrExit(context, overrides);
      if (config === null) return 1;
      // The `hal mcp` an attached CLI starts gets only HAL_DATA_DIR: it finds this database through the data folder.
      // Written before listening, so a client attached as soon as HAL answers finds it.
      recordServingDatabaseUrl(config.dataDir, config.databaseUrl);
      // Listen before announcing "listening", so a stop request right after it is not missed.
      const stopSignal = context.stopSignal;
      const server = await startServer({ config, output: context.stdout, logger: createLogger() });
      const signal = await stopSignal;
      server.deps.logger.info({ signal }, 'shutting down');
      await server.close();
      return 0;
    },
  },
  'admin create-operator': {
    usage: 'admin create-operator <username>',
    summary: 'Create an operator and print a generated password',
    options: {},
    positionals: { min: 1, max: 1 },
    run: (context) => setPassword(context, 'create'),
  },
  'admin reset-password': {
    usage: 'admin reset-password <username>',
    summary: "Set a new generated password and end the operator's sessions",
    options: {},
    positionals: { min: 1, max: 1 },
    run: (context) => setPassword(context, 'reset'),
  },
  'db migrate': {
    usage: 'db migrate',
    summary: 'Bring the database to the newest schema and say what was applied',
    options: {},
    async run(context) {
      const config = configOrExit(context);
      if (config === null) return 1;
      preparePrivateDataDir(config.dataDir);
      const database = openDatabase(databasePath(config.dataDir));
      try {
        const { applied } = await migrateToLatest(database.db);
        context.stdout.write(
          applied.length === 0
            ? 'database is up to date: no migration applied\n'
            : `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}:\n${applied
                .map((name) => `  ${name}\n`)
                .join('')}`,
        );
        return 0;
      } finally {
        await database.close();
      }
    },
  },
  'db restore': {
    usage: 'db restore <snapshot>',
    summary: "Restore a DR snapshot into a stopped HAL's data folder (keeps the current database beside it)",
    options: {},
    positionals: { min: 1, max: 1 },
    details:
      'The snapshot is a file name from <data>/dr (the DR page lists them) or a path. HAL must be stopped: a\n' +
      'database that a running hal serve or hal mcp holds open is refused. Example:\n' +
      '  systemctl stop hal && hal db restore hal-2026-12-01T03-00-00-000Z-1a2b3c4d.db && systemctl start hal',
    async run(context) {
      const config = configOrExit(context);
      if (config === null) return 1;
      if (config.databaseUrl !== undefined) {
        // A PostgreSQL snapshot is a pg_dump archive: PostgreSQL's own tool restores it (docs/operations.md).
        context.stderr.write(
          'hal: HAL_DATABASE_URL is set: restore a .dump snapshot with pg_restore --clean --if-exists -d "$HAL_DATABASE_URL" <file>\n',
        );
        return 1;
      }
      const result = await restoreSnapshot({
        dataDir: config.dataDir,
        snapshot: context.args[0] ?? '',
        clock: systemClock,
      });
      const lines = [`restored ${path.basename(result.source)} into ${result.database}`];
      if (result.previous !== null) lines.push(`the database as it was is kept as ${result.previous}`);
      lines.push(
        result.applied.length === 0
          ? 'no migration needed'
          : `applied ${result.applied.length} migration${result.applied.length === 1 ? '' : 's'}: ${result.applied.join(', ')}`,
      );
      if (result.registered.length > 0) {
        lines.push(
          `registered ${result.registered.length} snapshot file(s) the restored database did not list`,
        );
      }
      lines.push('start HAL again (systemctl start hal)');
      context.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    },
  },
  doctor: doctorCliCommand,
  agent: agentCliCommand,
  mcp: mcpCliCommand,
};

/** The help text: every command of the table, then every environment variable. */
export function usage(): string {
  const width = Math.max(...Object.values(commands).map((command) => command.usage.length));
  const lines = Object.values(commands).map(
    (command) => `  hal ${command.usage.padEnd(width)}  ${command.summary}`,
  );
  return `HAL ${HAL_VERSION} — the operator console\n\nUsage:\n${lines.join('\n')}\n  hal <command> --help\n  hal --help\n  hal --version\n\n${environmentHelp()}`;
}

/** Options of {@link runCli}: the edges, real by default. */
export interface RunCliOptions {
  env?: NodeJS.ProcessEnv;
  stdout?: CliContext['stdout'];
  stderr?: CliContext['stderr'];
  stopSignal?: Promise<string>;
}

/**
 * Runs `hal <argv…>` and resolves with the exit code: 0 ok, 1 failure (message on stderr),
 * 2 unknown command or bad usage (usage on stderr).
 */
export async function runCli(argv: string[], options: RunCliOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  if (
    argv.length === 0 ||
    (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help'))
  ) {
    (argv.length === 0 ? stderr : stdout).write(usage());
    return argv.length === 0 ? 2 : 0;
  }
  // `hal help <command…>` is `hal <command…> --help`.
  if (argv[0] === 'help') return runCli([...argv.slice(1), '--help'], options);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    stdout.write(`${HAL_VERSION}\n`);
    return 0;
  }
  const key = Object.keys(commands)
    .filter((name) => {
      const words = name.split(' ');
      return words.every((word, index) => argv[index] === word);
    })
    .sort((a, b) => b.split(' ').length - a.split(' ').length)[0];
  const command = key === undefined ? undefined : commands[key];
  if (key === undefined || command === undefined) {
    stderr.write(`hal: unknown command "${argv.join(' ')}"\n\n${usage()}`);
    return 2;
  }
  const args = argv.slice(key.split(' ').length);
  if (args.includes('--help') || args.includes('-h')) {
    stdout.write(commandHelp(command));
    return 0;
  }
  let values: Record<string, string | boolean | undefined> = {};
  let positionals = args;
  if (command.options !== undefined) {
    try {
      ({ values, positionals } = parseCommandArgs(command, args));
    } catch (error) {
      if (!(error instanceof CliUsageError)) throw error;
      stderr.write(`hal ${key}: ${error.message}\n\n${commandHelp(command)}`);
      return 2;
    }
  }
  let stopSignal = options.stopSignal;
  const context: CliContext = {
    args: positionals,
    env: options.env ?? process.env,
    stdout,
    stderr,
    // Created on first use: listening for SIGINT replaces Node's default exit, which short
    // commands should keep.
    get stopSignal() {
      stopSignal ??= new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      return stopSignal;
    },
  };
  try {
    return await command.run(context, values);
  } catch (error) {
    const message = HalError.isInstance(error) || error instanceof Error ? error.message : String(error);
    stderr.write(`hal: ${message}\n`);
    return 1;
  }
}

// This file is the `hal` bin entry: keep it out of `index.ts` and other modules' imports, or the
// bundler moves this code into a shared chunk and `import.meta.url` no longer names the entry.
function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return fs.realpathSync(entry) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`hal: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
