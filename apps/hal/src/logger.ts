import pino from 'pino';

/** HAL's structured logger (pino): JSON lines. */
export type Logger = pino.Logger;

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Where JSON lines go. Defaults to stderr so that stdout stays clean for `hal mcp` and printed passwords. */
  destination?: pino.DestinationStream;
  /** Minimum level; `silent` for tests. Defaults to `HAL_LOG_LEVEL` or `info`. */
  level?: pino.LevelWithSilent;
}

/**
 * Creates HAL's logger. Secrets never reach it: callers log identifiers and codes, not values.
 *
 * @example
 * const logger = createLogger({ level: 'silent' });
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? (process.env.HAL_LOG_LEVEL as pino.LevelWithSilent | undefined) ?? 'info';
  return pino(
    { level, base: { name: 'hal' } },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}
