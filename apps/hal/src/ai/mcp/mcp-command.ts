import type { Readable, Writable } from 'node:stream';
import { serveStdio } from '@hal-ai/mcp/stdio';
import { HalError } from '@hal-ai/spec';
import type { CliCommand } from '../../cli-command.js';
import { type HalConfig, loadConfig } from '../../platform/config.js';
import { DATABASE_URL_FILE, readServingDatabaseUrl } from '../../platform/database-url-file.js';
import { createLogger } from '../../platform/logger.js';
import { HAL_MCP_TOOLS_ENV, openMcpHost, parseMcpToolSelection, readMcpGrant } from './mcp-host.js';

/** The edges of {@link runHalMcp}: the process's own by default. */
export interface RunHalMcpOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: Readable;
  stdout?: Writable;
  /** Messages for a human (refusals); never stdout, which carries only JSON-RPC. */
  stderr?: { write(text: string): unknown };
  /** Resolves when the process is asked to stop. */
  stopSignal?: Promise<unknown>;
}

/**
 * The config of `hal mcp`: the environment's, and when it names no database, the PostgreSQL URL the running `hal
 * serve` recorded in the data folder (an attached CLI passes only `HAL_DATA_DIR`). Errors name the file, never the URL.
 */
function loadMcpConfig(env: NodeJS.ProcessEnv): HalConfig {
  const config = loadConfig(env);
  if (config.databaseUrl !== undefined) return config;
  const recorded = readServingDatabaseUrl(config.dataDir);
  if (recorded === undefined) return config;
  try {
    return loadConfig({ ...env, HAL_DATABASE_URL: recorded });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HalError('invalid_state', `${DATABASE_URL_FILE} in the data folder: ${reason}`);
  }
}

/**
 * `hal mcp` / `hal-mcp`: serves HAL's tools over stdio against the running HAL's database until stdin
 * ends or a stop signal arrives. Resolves the exit code: 0 after a clean end, 1 when the database is
 * missing or not migrated (the reason on stderr).
 */
export async function runHalMcp(options: RunHalMcpOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const stderr = options.stderr ?? process.stderr;
  let host: Awaited<ReturnType<typeof openMcpHost>>;
  try {
    const config = loadMcpConfig(env);
    const selection = parseMcpToolSelection(env[HAL_MCP_TOOLS_ENV]);
    // Logs are JSON lines on stderr (createLogger's default), never on stdout.
    const logger = createLogger({ level: (env.HAL_LOG_LEVEL as 'info' | undefined) ?? 'warn' });
    const grant = readMcpGrant(env);
    host = await openMcpHost({
      config,
      logger,
      ...(selection ? { selection } : {}),
      ...(grant ? { grant } : {}),
    });
  } catch (error) {
    const message = HalError.isInstance(error) || error instanceof Error ? error.message : String(error);
    stderr.write(`hal mcp: ${message}\n`);
    return 1;
  }
  const { closed } = await serveStdio(host.server, {
    ...(options.stdin ? { stdin: options.stdin } : {}),
    ...(options.stdout ? { stdout: options.stdout } : {}),
  });
  await Promise.race([closed, options.stopSignal ?? new Promise<never>(() => undefined)]);
  await host.close();
  return 0;
}

/** The `hal mcp` entry of the command table. */
export const mcpCliCommand: CliCommand = {
  usage: 'mcp',
  summary: "Serve HAL's tools to MCP clients over stdio (HAL_DATA_DIR of the running HAL; HAL_MCP_TOOLS)",
  options: {},
  details:
    'Reads the database of the HAL whose HAL_DATA_DIR (and HAL_VAULT_KEY) it is given — on PostgreSQL the URL hal\n' +
    'serve left in <data>/database-url unless HAL_DATABASE_URL is set; read tools run, write and\n' +
    'high calls become approval requests in the unified room. HAL_MCP_TOOLS: all · read_write · read_only ·\n' +
    'none · custom:<tool,tool>. JSON-RPC on stdout, logs on stderr.',
  run: (context) => runHalMcp({ env: context.env, stderr: context.stderr, stopSignal: context.stopSignal }),
};
