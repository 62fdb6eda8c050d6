import pino from 'pino';
import { vaultLogRedaction } from '../ai/vault/vault-log-redaction.js';
import { createPrettyDestination } from './logger-pretty.js';

/** HAL's structured logger (pino): JSON lines, or readable lines on a terminal. */
export type Logger = pino.Logger;

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Where JSON lines go. Defaults to stderr so that stdout stays clean for `hal mcp` and printed passwords. */
  destination?: pino.DestinationStream;
  /** Minimum level; `silent` for tests. Defaults to `HAL_LOG_LEVEL` or `info`. */
  level?: pino.LevelWithSilent;
  /**
   * Removes secrets from everything logged (the vault's `redact`). Called at every log call, so
   * it may be late-bound: the logger exists before the vault that knows the secrets.
   */
  redact?: (value: unknown) => unknown;
  /** The `name` every line carries (default `hal`; `hal agent` logs as `hal-agent`). */
  name?: string;
  /**
   * Readable lines instead of JSON (see `formatLogLine`). Default: when the destination is the default one and
   * stderr is a terminal — a person at a shell reads lines, the journal and log shippers read JSON.
   */
  pretty?: boolean;
  /** Whether stderr is a terminal (default `process.stderr.isTTY`), for the `pretty` default. */
  stderrIsTerminal?: boolean;
}

/**
 * Creates HAL's logger. Callers log identifiers and codes, not values; `redact` is the safety
 * net that removes any stored secret that slips into a log line anyway.
 *
 * @example
 * const logger = createLogger({ level: 'silent' });
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? (process.env.HAL_LOG_LEVEL as pino.LevelWithSilent | undefined) ?? 'info';
  const terminal = options.stderrIsTerminal ?? process.stderr.isTTY === true;
  const pretty = options.pretty ?? (options.destination === undefined && terminal);
  const json = options.destination ?? pino.destination({ fd: 2, sync: true });
  return pino(
    {
      level,
      base: { name: options.name ?? 'hal' },
      ...(options.redact ? vaultLogRedaction(options.redact as <T>(value: T) => T) : {}),
    },
    pretty ? createPrettyDestination((text) => json.write(text)) : json,
  );
}
