import pino from 'pino';
import { vaultLogRedaction } from '../ai/vault/vault-log-redaction.js';

/** HAL's structured logger (pino): JSON lines. */
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
  return pino(
    {
      level,
      base: { name: 'hal' },
      ...(options.redact ? vaultLogRedaction(options.redact as <T>(value: T) => T) : {}),
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}
