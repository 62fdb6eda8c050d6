import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProviderBodyEncoder } from './provider-body-encoder.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
};

describe('createProviderBodyEncoder', () => {
  it('gives exactly the text JSON.stringify gives, for every kind of plain data', () => {
    const long = `스킬 문서 ${'한국어와 English, "quotes", \\ and \n newlines '.repeat(200)}`;
    const bodies: unknown[] = [
      { model: 'm', stream: true, n: 1.5, none: null, skipped: undefined, fn: () => 1 },
      {
        messages: [
          { role: 'system', content: long },
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        ],
      },
      {
        list: [1, undefined, () => 2, Symbol('s'), 'x'],
        date: new Date(0),
        nested: { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } },
      },
      deepFreeze({ tools: [{ name: 't', schema: { type: 'object', properties: {} } }] }),
      { frozen: deepFreeze([{ a: 1 }, { b: [2, 3] }]), shallow: Object.freeze([{ a: 1 }]) },
      [],
      'plain string',
      long,
      42,
      null,
      { emoji: '🙂 \u2028 \u2029 \ud800 lone surrogate' },
    ];
    const encodeJsonBody = createProviderBodyEncoder();
    for (const body of bodies) {
      expect(encodeJsonBody(body)).toBe(JSON.stringify(body));
      // Twice: the second comes from the caches.
      expect(encodeJsonBody(body)).toBe(JSON.stringify(body));
    }
  });

  it('encodes a deeply frozen list and a long string once, and never caches what can still change', () => {
    const tools = deepFreeze([{ name: 'a', description: 'x'.repeat(100) }]);
    const system = `skill ${'s'.repeat(5000)}`;
    const mutable = Object.freeze([{ name: 'b' }]) as unknown as Array<{ name: string }>;
    const encodeJsonBody = createProviderBodyEncoder();
    const stringify = vi.spyOn(JSON, 'stringify');
    for (let index = 0; index < 3; index += 1) {
      encodeJsonBody({ tools, messages: [{ role: 'system', content: `${system}` }], other: mutable });
    }
    expect(stringify.mock.calls.filter(([value]) => value === tools)).toHaveLength(1);
    expect(stringify.mock.calls.filter(([value]) => value === system)).toHaveLength(1);
    // Frozen on the outside only: its item can change, so it is encoded every time and shows the change.
    (mutable[0] as { name: string }).name = 'changed';
    expect(JSON.parse(encodeJsonBody({ other: mutable })).other[0].name).toBe('changed');
  });

  it('keeps long strings of one length apart, even those that differ only in the middle', () => {
    // System prompts: one skill document, then each connection's own part, all of one length.
    const skill = 'skill '.repeat(5000);
    const prompts = Array.from(
      { length: 64 },
      (_, index) => `${skill}# You\n- name: m${String(index).padStart(2, '0')}`,
    );
    const middle = (letter: string) => `${'a'.repeat(100)}${letter}${'z'.repeat(5000)}`;
    const twins = [middle('x'), middle('y')];
    const encodeJsonBody = createProviderBodyEncoder();
    const stringify = vi.spyOn(JSON, 'stringify');
    for (let round = 0; round < 3; round += 1) {
      for (const text of [...prompts, ...twins]) {
        const body = { messages: [{ role: 'system', content: `${text}` }] };
        expect(encodeJsonBody(body)).toBe(JSON.stringify(body));
      }
    }
    // Each prompt is encoded once. The twins share a cache key; the bytes above show they are still told apart.
    const encoded = (value: string) => stringify.mock.calls.filter(([argument]) => argument === value).length;
    for (const prompt of prompts) expect(encoded(prompt)).toBe(1);
  });

  it('keeps at most its budget of encoded long strings, least recently used out, and each encoder its own', () => {
    const text = (letter: string) => `${letter.repeat(5000)}`;
    const encodeJsonBody = createProviderBodyEncoder({ maxCharacters: 12_000 });
    const other = createProviderBodyEncoder();
    const stringify = vi.spyOn(JSON, 'stringify');
    const times = (value: string) => stringify.mock.calls.filter(([argument]) => argument === value).length;
    encodeJsonBody(text('a'));
    encodeJsonBody(text('b'));
    encodeJsonBody(text('a'));
    // Room for two: `c` pushes out `b`, the least recently used.
    encodeJsonBody(text('c'));
    encodeJsonBody(text('a'));
    encodeJsonBody(text('b'));
    expect([times(text('a')), times(text('b')), times(text('c'))]).toEqual([1, 2, 1]);
    other(text('a'));
    expect(times(text('a'))).toBe(2);
  });
});
