import { parseArgs } from 'node:util';
import { createDispatcherFetch, createProxyDispatcher } from '@hal-ai/providers';
import { HalError } from '@hal-ai/spec';
import type { CliCommand } from '../../cli-command.js';
import { createLogger } from '../../platform/logger.js';
import { type AgentLoopSettings, runAgentLoop } from './agent-loop.js';

/** The edges of the `hal agent` command, injectable for tests. */
export interface AgentCommandIo {
  env?: NodeJS.ProcessEnv;
  /** Where log lines go (default: process stderr — stdout stays free for whatever wraps the agent). */
  stderr?: (text: string) => void;
  /** Subscribes to the stop signals (default: SIGINT and SIGTERM of this process); returns an unsubscribe. */
  onStop?: (stop: () => void) => () => void;
  /** Default: a `fetch` that follows `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` of `env`. */
  fetch?: typeof globalThis.fetch;
  /** Extra loop settings (tests: short backoff). */
  loop?: Partial<Omit<AgentLoopSettings, 'halUrl' | 'token' | 'dataDir' | 'signal'>>;
  /** Whether the injected `stderr` is a terminal (readable lines instead of JSON). Default false. */
  stderrIsTerminal?: boolean;
}

/** Usage text of `hal agent`. */
export const AGENT_COMMAND_USAGE =
  'usage: hal agent --hal <url> [--token <token>] [--data-dir <dir>]\n' +
  '  The token may also come from HAL_AGENT_TOKEN (keeps it out of the process list).\n' +
  '  The data folder defaults to HAL_DATA_DIR or ./data.\n';

function defaultOnStop(stop: () => void): () => void {
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
}

/**
 * `hal agent --hal <url> --token <token> [--data-dir <dir>]`: runs this machine's agent for HAL until
 * SIGINT/SIGTERM. Returns the exit code: 0 after a clean stop, 1 when HAL refuses the token, 2 on bad usage.
 */
export async function runAgentCommand(argv: string[], io: AgentCommandIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const write = io.stderr ?? ((text: string) => process.stderr.write(text));
  let values: { hal?: string | undefined; token?: string | undefined; 'data-dir'?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { hal: { type: 'string' }, token: { type: 'string' }, 'data-dir': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    write(`hal agent: ${(error as Error).message}\n${AGENT_COMMAND_USAGE}`);
    return 2;
  }
  const halUrl = values.hal ?? env.HAL_URL;
  const token = values.token ?? env.HAL_AGENT_TOKEN;
  if (!halUrl || !token || !URL.canParse(halUrl) || !/^https?:$/.test(new URL(halUrl).protocol)) {
    write(`hal agent: --hal <http(s) url> and --token are required\n${AGENT_COMMAND_USAGE}`);
    return 2;
  }
  const stop = new AbortController();
  const unsubscribe = (io.onStop ?? defaultOnStop)(() => stop.abort());
  // The same logger as `hal serve`: pino JSON lines, readable ones when stderr is a terminal.
  const logger = createLogger({
    name: 'hal-agent',
    level: (env.HAL_LOG_LEVEL as 'info' | undefined) ?? 'info',
    ...(io.stderr !== undefined
      ? { destination: { write: (text: string) => write(text) }, pretty: io.stderrIsTerminal ?? false }
      : {}),
  });
  const log = (line: string) => logger.info(line);
  try {
    await runAgentLoop({
      ...io.loop,
      halUrl,
      token,
      dataDir: values['data-dir'] ?? env.HAL_DATA_DIR ?? './data',
      signal: stop.signal,
      log,
      // The agent's polls to HAL follow the same proxy variables as every other outbound call.
      fetch: io.fetch ?? createDispatcherFetch(createProxyDispatcher(env)),
    });
    return 0;
  } catch (error) {
    log(
      `stopped: ${HalError.isInstance(error) ? `${error.code}: ${error.message}` : (error as Error).message}`,
    );
    return 1;
  } finally {
    unsubscribe();
  }
}

/**
 * The `hal agent` entry of the CLI command table (`src/cli.ts`): it parses its own flags (strictly, exit 2 on a
 * mistake) and stops when the CLI's stop signal (SIGINT/SIGTERM) resolves.
 */
export const agentCliCommand: CliCommand = {
  usage: 'agent --hal <url> --token <token> [--data-dir <dir>]',
  summary: 'Run this machine as a remote agent of a HAL (it connects to HAL; HAL never connects to it)',
  details: AGENT_COMMAND_USAGE,
  run(context) {
    return runAgentCommand(context.args, {
      env: context.env,
      stderr: (text) => {
        context.stderr.write(text);
      },
      onStop: (stop) => {
        void context.stopSignal.then(stop);
        return () => {};
      },
    });
  },
};
