import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line carries, shown in the line's head rather than as `key=value`. */
const HEAD_FIELDS = new Set(['level', 'time', 'name', 'msg', 'pid', 'hostname']);

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/**
 * One pino JSON line as a person reads it in a terminal: `12:00:01.250 INFO  hal request method=GET …`.
 * A line that is not JSON passes through unchanged.
 */
export function formatLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = (LEVELS[Number(record.level)] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key]) => !HEAD_FIELDS.has(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  return `${[time, level, record.name, record.msg, ...fields].filter((part) => part !== undefined && part !== '').join(' ')}\n`;
}

/**
 * A pino destination that writes readable lines (see {@link formatLogLine}) to `write`: what HAL logs when its
 * stderr is a terminal. Elsewhere (systemd's journal, a file, a pipe) HAL writes pino's JSON lines unchanged.
 */
export function createPrettyDestination(write: (text: string) => unknown): Writable {
  let pending = '';
  return new Writable({
    write(chunk, _encoding, done) {
      pending += String(chunk);
      let end = pending.indexOf('\n');
      while (end >= 0) {
        write(formatLogLine(pending.slice(0, end)));
        pending = pending.slice(end + 1);
        end = pending.indexOf('\n');
      }
      done();
    },
  });
}
