import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeJsonBody, memoizeFrozen } from './json-body.js';

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

describe('encodeJsonBody', () => {
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
});

describe('memoizeFrozen', () => {
  it('builds once per frozen input, freezes the result, and rebuilds for a mutable input', () => {
    const build = vi.fn((input: Array<{ n: number }>) => input.map((item) => ({ doubled: item.n * 2 })));
    const memo = memoizeFrozen(build);
    const frozen = deepFreeze([{ n: 1 }]);
    const first = memo(frozen);
    expect(memo(frozen)).toBe(first);
    expect(Object.isFrozen(first[0])).toBe(true);
    const mutable = [{ n: 2 }];
    expect(memo(mutable)).not.toBe(memo(mutable));
    expect(build).toHaveBeenCalledTimes(3);
  });
});
