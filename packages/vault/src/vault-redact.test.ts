import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedactor, encodedFormsOf, REDACTED } from './index.js';

// Includes characters that encodeURIComponent changes, so the URL form differs from the raw one.
const newSecret = () => `${randomBytes(18).toString('base64')}/+=&:${randomBytes(6).toString('hex')}`;

function encodings(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, 'utf8');
  return {
    raw: secret,
    base64: bytes.toString('base64'),
    base64url: bytes.toString('base64url'),
    hex: bytes.toString('hex'),
    HEX: bytes.toString('hex').toUpperCase(),
    url: encodeURIComponent(secret),
  };
}

function containsAny(text: string, secret: string): string[] {
  return Object.entries(encodings(secret))
    .filter(([, form]) => text.includes(form))
    .map(([name]) => name);
}

describe('createRedactor', () => {
  it('replaces the raw secret and its base64, base64url, hex and URL-encoded forms', () => {
    const secret = newSecret();
    const { redact } = createRedactor([secret]);
    for (const [name, form] of Object.entries(encodings(secret))) {
      const out = redact(`before ${form} after`);
      expect(out, name).toBe(`before ${REDACTED} after`);
    }
    expect(encodings(secret).url).not.toBe(secret);
  });

  it('replaces its UTF-16 spellings: UTF-16LE bytes as base64 or hex, NUL-separated text, \\u escapes', () => {
    const secret = `${newSecret()}é`;
    const { redact } = createRedactor([secret]);
    const wide = Buffer.from(secret, 'utf16le');
    const escapes = Array.from(
      { length: secret.length },
      (_, index) => `\\u${secret.charCodeAt(index).toString(16).padStart(4, '0')}`,
    ).join('');
    const forms = {
      base64: wide.toString('base64'),
      hex: wide.toString('hex'),
      HEX: wide.toString('hex').toUpperCase(),
      latin1: wide.toString('latin1'),
      escapes,
      ESCAPES: escapes.toUpperCase().replaceAll('\\U', '\\u'),
    };
    for (const [name, form] of Object.entries(forms)) {
      expect(redact(`before ${form} after`), name).toBe(`before ${REDACTED} after`);
    }
    // Inside a longer base64 text of UTF-16 (PowerShell's -EncodedCommand), at any alignment.
    for (const prefix of ['', 'x', 'xy']) {
      const encoded = Buffer.from(`$env:KEY='${prefix}${secret}'`, 'utf16le').toString('base64');
      expect(redact(encoded), prefix).toContain(REDACTED);
    }
  });

  it('walks nested objects, arrays, Maps, Sets, keys and Errors, and leaves other values intact', () => {
    const secret = newSecret();
    const forms = encodings(secret);
    const { redact } = createRedactor([secret]);
    const error = new Error(`request failed with ${forms.url}`);
    const input = {
      level: 30,
      ok: true,
      at: new Date(0),
      nothing: null,
      request: {
        headers: [
          ['authorization', `Bearer ${secret}`],
          ['x-debug', forms.hex],
        ],
        query: `?key=${forms.url}&x=1`,
        body: { deep: { deeper: [{ token: forms.base64 }, forms.base64url, 42] } },
      },
      [secret]: 'secret as a key',
      map: new Map([[forms.HEX, new Set([secret])]]),
      error,
    };
    const out = redact(input);
    const text = JSON.stringify(out, (_k, v) =>
      v instanceof Map
        ? [...v]
        : v instanceof Set
          ? [...v]
          : v instanceof Error
            ? { message: v.message, stack: v.stack }
            : v,
    );
    expect(containsAny(text, secret)).toEqual([]);
    expect(out.request.headers[0]).toEqual(['authorization', `Bearer ${REDACTED}`]);
    expect(out.request.query).toBe(`?key=${REDACTED}&x=1`);
    expect(out.request.body.deep.deeper).toEqual([{ token: REDACTED }, REDACTED, 42]);
    expect(out[REDACTED as keyof typeof out]).toBe('secret as a key');
    expect(out.level).toBe(30);
    expect(out.at).toBeInstanceOf(Date);
    expect(out.error).toBeInstanceOf(Error);
    expect(out.error.message).toBe(`request failed with ${REDACTED}`);
    expect(out.error.stack).not.toContain(forms.url);
    // The input is not modified.
    expect(input.request.query).toContain(forms.url);
    expect(error.message).toContain(forms.url);
  });

  it('finds the secret inside a longer base64 text at any alignment (e.g. a Basic authorization header)', () => {
    const secret = newSecret();
    const { redact } = createRedactor([secret]);
    for (const user of ['a', 'ab', 'abc', 'operator']) {
      for (const alphabet of ['base64', 'base64url'] as const) {
        const header = Buffer.from(`${user}:${secret}`).toString(alphabet);
        const out = redact(`Basic ${header}`);
        expect(out).toContain(REDACTED);
        // At most 3 characters either side, encoding at most 2 bytes of the secret, may remain.
        const leftover = out.replace(`Basic `, '').split(REDACTED).join('');
        expect(leftover.length).toBeLessThanOrEqual(Buffer.from(`${user}:`).toString(alphabet).length + 6);
      }
    }
  });

  it('finds a secret with quotes or backslashes inside serialised JSON', () => {
    const secret = `${randomBytes(9).toString('hex')}"\\${randomBytes(9).toString('hex')}`;
    const { redact } = createRedactor([secret]);
    expect(redact(JSON.stringify({ token: secret }))).toBe(`{"token":"${REDACTED}"}`);
  });

  it('handles cycles and repeated references', () => {
    const secret = newSecret();
    const { redact } = createRedactor([secret]);
    const node: Record<string, unknown> = { name: secret };
    node.self = node;
    const out = redact({ a: node, b: node }) as { a: Record<string, unknown>; b: unknown };
    expect(out.a.name).toBe(REDACTED);
    expect(out.a.self).toBe(out.a);
    expect(out.b).toBe(out.a);
  });

  it('tracks added and removed secrets, counting duplicates', () => {
    const one = newSecret();
    const two = newSecret();
    const redactor = createRedactor();
    expect(redactor.redact(one)).toBe(one);
    redactor.add(one);
    redactor.add(two);
    redactor.add(two);
    expect(redactor.size).toBe(2);
    expect(redactor.redact(`${one}|${two}`)).toBe(`${REDACTED}|${REDACTED}`);
    redactor.remove(one);
    redactor.remove(two);
    expect(redactor.redact(`${one}|${two}`)).toBe(`${one}|${REDACTED}`);
    redactor.remove(two);
    expect(redactor.size).toBe(0);
  });

  it('ignores secrets too short to be patterns, and treats regex characters literally', () => {
    const redactor = createRedactor(['abc', 'a.b*c+d?(e)[f]']);
    expect(redactor.redact('abc abc')).toBe('abc abc');
    expect(redactor.redact('xa.b*c+d?(e)[f]x aXbbbcd')).toBe(`x${REDACTED}x aXbbbcd`);
    expect(encodedFormsOf('abc')).toEqual([]);
  });
});

describe('heldLength', () => {
  it('counts the trailing characters that could begin a known spelling, and none once a spelling is whole or absent', () => {
    const secret = `hk-${randomBytes(12).toString('hex')}`;
    const redactor = createRedactor([secret]);
    expect(redactor.heldLength(`say ${secret.slice(0, 5)}`)).toBe(5);
    // A whole secret is no tail to hold (what follows it can begin no spelling: base64 and hex have no '.').
    expect(redactor.heldLength(`say ${secret} now.`)).toBe(0);
    expect(redactor.heldLength('nothing secret here!')).toBe(0);
    const hex = Buffer.from(secret).toString('hex');
    expect(redactor.heldLength(`x ${hex.slice(0, 9)}`)).toBe(9);
    expect(createRedactor().heldLength('anything')).toBe(0);
  });
});
