import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createDispatcherFetch, createProxyDispatcher, type ProxyEnvironment } from '@hal-ai/providers';
import { serve } from '@hono/node-server';
import { createAgentDirectory } from './agents/agent-directory.js';
import { createLocalAgent } from './agents/agent-local.js';
import { createAgentQueue } from './agents/agent-queue.js';
import { createAiService } from './ai/ai-service.js';
import { createConnectionService } from './ai/connections/index.js';
import { createShellService } from './ai/shell/index.js';
import { loadSkill } from './ai/skill.js';
import { createHalWebAccess } from './ai/web/hal-web-access.js';
import { createApp } from './app.js';
import { countOperators, createOperator } from './auth/auth-operators.js';
import type { HalConfig } from './config.js';
import { type Clock, systemClock } from './core/clock.js';
import { createHalCore, LOCAL_SERVER_ID } from './core/hal-core.js';
import { preparePrivateDataDir } from './data-dir.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { type AppDeps, createDeps } from './deps.js';
import { createLogger, type Logger } from './logger.js';
import { halMcpRunAttachment } from './mcp/mcp-attachment.js';
import { createAppVault } from './secrets/index.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  config: HalConfig;
  logger?: Logger;
  clock?: Clock;
  /** Where the first-run password and the "listening" line go (never the log). Defaults to stdout. */
  output?: { write(text: string): unknown };
  /** Where `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` are read for every outbound call. Default `process.env`. */
  env?: ProxyEnvironment;
}

/** A running HAL. */
export interface RunningServer {
  /** `http://<host>:<port>` with the real port (also when `HAL_PORT=0`). */
  url: string;
  port: number;
  deps: AppDeps;
  /**
   * Stops promptly: stops accepting connections, ends the live event streams and running turns,
   * closes keep-alive sockets as they go idle, cuts whatever is still open after
   * {@link SHUTDOWN_GRACE_MS}, then stops the core and closes the database.
   */
  close(): Promise<void>;
}

/** How long a shutdown waits for in-flight requests before cutting their connections. */
export const SHUTDOWN_GRACE_MS = 3_000;

/** The database file inside the data folder. */
export function databasePath(dataDir: string): string {
  return path.join(dataDir, 'hal.db');
}

/**
 * Starts HAL: creates the data folder, opens and migrates `<dataDir>/hal.db`, creates operator
 * `admin` with a one-time password on the very first run (printed to `output`, never logged),
 * listens, and prints `HAL listening on http://<host>:<port>`.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config } = options;
  // Late-bound: the logger exists before the vault, which then hands over its redactor.
  let redactSecrets: (value: unknown) => unknown = (value) => value;
  const logger = options.logger ?? createLogger({ redact: (value) => redactSecrets(value) });
  const output = options.output ?? process.stdout;
  const { widenedMode } = preparePrivateDataDir(config.dataDir);
  if (widenedMode !== null) {
    logger.warn(
      { dataDir: config.dataDir, mode: widenedMode },
      `the data folder was ${widenedMode} (readable by others); it is now 0700`,
    );
  }
  const database = openDatabase(databasePath(config.dataDir));
  let startedCore: { stop(): Promise<void> } | undefined;
  try {
    await migrateToLatest(database.db);
    // The vault opens first so the audit log can redact every stored secret from its details.
    const vault = await createAppVault({ db: database.db, config, logger });
    redactSecrets = (value) => vault.redact(value);
    const deps = createDeps({
      db: database.db,
      sqlite: database.sqlite,
      config,
      clock: options.clock ?? systemClock,
      logger,
      redact: (value) => vault.redact(value),
    });
    deps.vault = vault;
    // One dispatcher from the environment for every outbound call: provider, model-list and OAuth calls all
    // follow HTTPS_PROXY / HTTP_PROXY / NO_PROXY.
    const dispatcher = createProxyDispatcher(options.env ?? process.env);
    // Local CLI runs get HAL's MCP server (read tools run, the rest become approval requests in the run's room),
    // started from the bundle or, when HAL runs from its sources, from those (`resolveHalMcpEntry`).
    deps.connections = createConnectionService(
      { ...deps, vault },
      {
        dispatcher,
        fetch: createDispatcherFetch(dispatcher),
        cli: { mcp: (selection) => halMcpRunAttachment(deps, selection) },
      },
    );
    // The core finds agents through deps, so the directory can be built after the core it resolves tokens with.
    const core = createHalCore({
      db: database.db,
      sqlite: database.sqlite,
      clock: deps.clock,
      audit: deps.audit,
      dataDir: config.dataDir,
      agents: { get: (serverId) => deps.agents?.get(serverId) },
      logger,
      secrets: vault,
    });
    deps.agents ??= createAgentDirectory({
      local: createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir: config.dataDir }),
      remote: {
        queue: createAgentQueue(),
        resolveAgentToken: async (token) => (await core.servers.resolveAgentToken(token)) ?? null,
      },
    });
    deps.core = core;
    deps.jobs = core;
    // The login terminal: its sessions end when the dialog closes, on their timers, or when HAL stops.
    deps.shells = createShellService({
      audit: deps.audit,
      logger,
      clock: deps.clock,
      ...(deps.connections ? { connections: deps.connections } : {}),
    });
    startedCore = core;
    await core.start();
    if (deps.connections) {
      // The rooms follow the connections; turns cut by the previous shutdown are marked interrupted.
      deps.ai = createAiService({
        deps,
        connections: deps.connections,
        skill: await loadSkill(),
        web: createHalWebAccess(deps),
      });
      await deps.ai.engine.recoverInterrupted();
    }
    if ((await countOperators(database.db)) === 0) {
      const { operator, password } = await createOperator(deps, 'admin');
      await deps.audit.append({
        actor: 'system',
        action: 'operator.create',
        target: `operator:${operator.id}`,
        details: { username: 'admin', firstRun: true },
      });
      output.write(`operator: admin\npassword: ${password}\n`);
    }
    const app = createApp(deps);
    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const instance = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () =>
        resolve(instance),
      );
      instance.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    logger.info({ url }, 'listening');
    output.write(`HAL listening on ${url}\n`);
    let closing: Promise<void> | undefined;
    return {
      url,
      port,
      deps,
      close() {
        closing ??= (async () => {
          const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
          // Open SSE streams never end by themselves and running turns wait on a provider: both
          // used to hold server.close() open until every client hung up (tens of seconds).
          const aiClosed = deps.ai?.close();
          // Every PTY goes with HAL (their end is audited before the database closes).
          const shellsClosed = deps.shells?.close();
          const http = server as Partial<Pick<HttpServer, 'closeIdleConnections' | 'closeAllConnections'>>;
          // A socket whose response just ended stays open for keep-alive: close idle ones as they appear.
          http.closeIdleConnections?.();
          const sweep = setInterval(() => http.closeIdleConnections?.(), 50);
          const cut = setTimeout(() => http.closeAllConnections?.(), SHUTDOWN_GRACE_MS);
          try {
            await stopped;
          } finally {
            clearInterval(sweep);
            clearTimeout(cut);
          }
          await aiClosed;
          await shellsClosed;
          await core.stop();
          await database.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await startedCore?.stop();
    await database.close();
    throw error;
  }
}
