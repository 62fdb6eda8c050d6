import type { LoggerOptions } from 'pino';

/**
 * pino options that pass everything a log call receives — the merging object, the message and
 * its interpolation arguments — through `redact` before pino serialises it, and every finished
 * JSON line once more before it is written (child-logger bindings are serialised when the child
 * is made, past any formatter, so only the line itself covers them). Spread them into the
 * logger's options:
 *
 * @example
 * const logger = pino({ level: 'info', ...vaultLogRedaction((value) => vault.redact(value)) });
 */
export function vaultLogRedaction(redact: <T>(value: T) => T): Pick<LoggerOptions, 'hooks' | 'formatters'> {
  return {
    hooks: {
      logMethod(args, method) {
        // Redacting the arguments covers `logger.info(obj, msg, ...)`, `logger.error(err)` and
        // `%s` interpolation, before serializers or message formatting run.
        method.apply(this, args.map((arg) => redact(arg)) as Parameters<typeof method>);
      },
      streamWrite: (line) => redact(line),
    },
    formatters: {
      bindings: (bindings) => redact(bindings),
      log: (object) => redact(object),
    },
  };
}
