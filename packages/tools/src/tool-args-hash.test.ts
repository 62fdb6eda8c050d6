import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { argsHash, sha256Hex } from './tool-args-hash.js';
import { canonicalArgs, canonicalJson } from './tool-canonical-json.js';

const nodeSha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('matches node:crypto on every length around the block boundaries and on random data', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = randomBytes(length);
      expect(sha256Hex(bytes)).toBe(nodeSha256(bytes));
    }
    const big = randomBytes(100_003);
    expect(sha256Hex(big)).toBe(nodeSha256(big));
    expect(sha256Hex('한국어 ✓ 🚀')).toBe(nodeSha256('한국어 ✓ 🚀'));
  });
});

describe('canonicalJson', () => {
  it.each<[string, unknown, string]>([
    [
      'sorted keys at every depth',
      { b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } },
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    ],
    ['undefined members dropped, in arrays as null', { a: undefined, b: [undefined, 1] }, '{"b":[null,1]}'],
    ['numbers in shortest form', { n: [1.0, -0, 1e21, 0.1, 1e-7] }, '{"n":[1,0,1e+21,0.1,1e-7]}'],
    ['strings escaped as JSON', { s: 'a"b\\c\n\u0001' }, '{"s":"a\\"b\\\\c\\n\\u0001"}'],
    [
      'UTF-16 key order (RFC 8785)',
      { '\u20ac': 1, '\r': 2, '1': 3, '\ud83d\ude00': 4, ö: 5 },
      '{"\\r":2,"1":3,"ö":5,"€":1,"😀":4}',
    ],
    ['a top-level primitive', 'x', '"x"'],
    ['undefined alone', undefined, 'null'],
  ])('%s', (_label, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('refuses cycles and bigints', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/circular/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/bigint/);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { a: 1 };
    expect(canonicalJson({ x: shared, y: shared })).toBe('{"x":{"a":1},"y":{"a":1}}');
  });

  it('writes what JSON.stringify writes, keys sorted: toJSON, non-finite numbers, functions', () => {
    const value = {
      at: new Date(Date.UTC(2026, 11, 1, 21, 0, 0)),
      n: [Number.NaN, Number.POSITIVE_INFINITY],
      run: () => 1,
      list: [() => 1],
      z: { toJSON: () => ({ b: 2, a: 1 }) },
    };
    expect(canonicalJson(value)).toBe(
      '{"at":"2026-12-01T21:00:00.000Z","list":[null],"n":[null,null],"z":{"a":1,"b":2}}',
    );
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('is the function the argument binding calls canonicalArgs', () => {
    expect(canonicalArgs).toBe(canonicalJson);
  });
});

describe('argsHash', () => {
  it('is the sha256 of the canonical form, independent of key order', () => {
    const a = { id: 'srv-1', options: { force: true, reason: 'disk' } };
    const b = JSON.parse('{"options":{"reason":"disk","force":true},"id":"srv-1"}');
    expect(argsHash(a)).toBe(argsHash(b));
    expect(argsHash(a)).toBe(nodeSha256(canonicalArgs(a)));
    expect(argsHash(a)).not.toBe(argsHash({ ...a, id: 'srv-2' }));
  });
});
