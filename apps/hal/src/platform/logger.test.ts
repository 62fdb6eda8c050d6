import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createRedactor } from '@hal-ai/vault';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('passes every log line through a late-bound redactor', () => {
    const secret = randomBytes(24).toString('base64url');
    let redact: (value: unknown) => unknown = (value) => value;
    const { lines, destination } = capture();
    const logger = createLogger({ destination, level: 'info', redact: (value) => redact(value) });
    const redactor = createRedactor([secret]);
    redact = (value) => redactor.redact(value);

    logger.info({ header: `Bearer ${secret}`, nested: { key: secret } }, 'calling with %s', secret);
    logger.child({ apiKey: secret }).warn('child binding');

    const text = lines.join('');
    expect(lines).toHaveLength(2);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(secret).toString('base64'));
    expect(text).toContain('[redacted]');
  });

  it('logs unchanged without a redactor', () => {
    const { lines, destination } = capture();
    createLogger({ destination, level: 'info' }).info({ id: 'srv_1' }, 'plain');
    expect(lines.join('')).toContain('srv_1');
  });
});

describe('createLogger output', () => {
  it('writes readable lines when asked (stderr is a terminal) and pino JSON otherwise', () => {
    const json = capture();
    createLogger({ destination: json.destination, level: 'info' }).info({ status: 200 }, 'request');
    expect(JSON.parse(json.lines.join(''))).toMatchObject({ name: 'hal', msg: 'request', status: 200 });

    const readable = capture();
    const logger = createLogger({
      destination: readable.destination,
      level: 'info',
      pretty: true,
      name: 'hal-agent',
    });
    logger.warn({ path: '/ops', note: 'two words' }, 'request');
    expect(readable.lines.join('')).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}hal-agent request path=\/ops note="two words"\n$/,
    );
    // The default: readable only when no destination is given and stderr is a terminal.
    const terminal = capture();
    createLogger({ destination: terminal.destination, stderrIsTerminal: true, level: 'info' }).info('x');
    expect(() => JSON.parse(terminal.lines.join(''))).not.toThrow();
  });
});
