import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDispatcherFetch, createProxyDispatcher, type ProxyEnvironment } from '@hal-ai/providers';
import { serve } from '@hono/node-server';
import { halMcpRunAttachment } from './ai/mcp/mcp-attachment.js';
import { createHalWebAccess } from './ai/web/hal-web-access.js';
import { createApp } from './app.js';
import { countOperators, createOperator } from './domain/auth/auth-operators.js';
import type { Clock } from './domain/core/clock.js';
import { createHalRuntime, type HalRuntime } from './hal-runtime.js';
import type { HalConfig } from './platform/config.js';
import { lingerBeforeClose } from './platform/http/lingering-close.js';
import type { Logger } from './platform/logger.js';

export { databasePath } from './hal-runtime.js';

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
  /** Every service of this HAL (built by `createHalRuntime`). */
  deps: HalRuntime;
  /**
   * Stops promptly: stops accepting connections, ends the live event streams and running turns,
   * closes keep-alive sockets as they go idle, cuts whatever is still open after
   * {@link SHUTDOWN_GRACE_MS}, then stops the core and closes the database.
   */
  close(): Promise<void>;
}

/** How long a shutdown waits for in-flight requests before cutting their connections. */
export const SHUTDOWN_GRACE_MS = 3_000;

/**
 * Starts HAL: creates the data folder, opens and migrates `<dataDir>/hal.db`, creates operator
 * `admin` with a one-time password on the very first run (printed to `output`, never logged),
 * listens, and prints `HAL listening on http://<host>:<port>`.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config } = options;
  const output = options.output ?? process.stdout;
  // One dispatcher from the environment for every outbound call: provider, model-list and OAuth calls all
  // follow HTTPS_PROXY / HTTP_PROXY / NO_PROXY.
  const dispatcher = createProxyDispatcher(options.env ?? process.env);
  const deps = await createHalRuntime(config, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    // Local CLI runs get HAL's MCP server (read tools run, the rest become approval requests in the run's room),
    // started from the bundle or, when HAL runs from its sources, from those (`resolveHalMcpEntry`).
    connections: (services) => ({
      dispatcher,
      fetch: createDispatcherFetch(dispatcher),
      cli: { mcp: (selection) => halMcpRunAttachment(services, selection) },
    }),
    web: createHalWebAccess,
  });
  const { logger } = deps;
  try {
    // The job runner starts; turns cut by the previous shutdown are marked interrupted.
    await deps.start();
    if ((await countOperators(deps.db)) === 0) {
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
    // A refused body still on the wire must not turn the answer into a reset (`Connection: close` clients).
    lingerBeforeClose(server as HttpServer);
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
          const aiClosed = deps.ai.close();
          // Every PTY goes with HAL (their end is audited before the database closes).
          const shellsClosed = deps.shells.close();
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
          await deps.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await deps.close();
    throw error;
  }
}
