import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineTool } from './tool-definition.js';
import { type ValidationIssue, validateArgs } from './tool-validation.js';

const tool = defineTool({
  name: 'hal_server_create',
  description: 'Register a server.',
  risk: 'write',
  // Deliberately a plain (non-strict) v.object: validation must still reject unknown keys.
  args: v.object({
    name: v.pipe(v.string(), v.minLength(2), v.maxLength(10)),
    role: v.picklist(['web', 'db', 'mail']),
    cpus: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64)), 2),
    server: v.optional(v.object({ host: v.pipe(v.string(), v.minLength(1)), port: v.optional(v.number()) })),
    tags: v.optional(v.array(v.object({ key: v.string() }))),
    labels: v.optional(v.record(v.string(), v.string())),
    note: v.optional(v.nullable(v.looseObject({ text: v.string() }))),
  }),
  execute: () => null,
});

function issues(input: unknown): ValidationIssue[] {
  const result = validateArgs(tool, input);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  return result.issues;
}

const valid = { name: 'web-1', role: 'web' };

describe('validateArgs', () => {
  it('accepts valid arguments and applies defaults', () => {
    expect(validateArgs(tool, valid)).toEqual({ ok: true, value: { name: 'web-1', role: 'web', cpus: 2 } });
    expect(
      validateArgs(tool, {
        ...valid,
        server: { host: 'h', port: 22 },
        tags: [{ key: 'a' }],
        labels: { env: 'prod' },
      }).ok,
    ).toBe(true);
  });

  it.each<[string, unknown, ValidationIssue[]]>([
    ['an unknown key', { ...valid, shell: 'rm -rf /' }, [{ path: 'shell', message: 'Unknown argument' }]],
    ['a missing key', { role: 'web' }, [{ path: 'name', message: 'Required' }]],
    [
      'a wrong type',
      { ...valid, name: 42 },
      [{ path: 'name', message: 'Invalid type: Expected string but received 42' }],
    ],
    [
      'a value outside the enum',
      { ...valid, role: 'root' },
      [{ path: 'role', message: 'Invalid type: Expected ("web" | "db" | "mail") but received "root"' }],
    ],
    [
      'a string too short',
      { ...valid, name: 'a' },
      [{ path: 'name', message: 'Invalid length: Expected >=2 but received 1' }],
    ],
    [
      'a string too long',
      { ...valid, name: 'a'.repeat(11) },
      [{ path: 'name', message: 'Invalid length: Expected <=10 but received 11' }],
    ],
    [
      'a number out of range',
      { ...valid, cpus: 65 },
      [{ path: 'cpus', message: 'Invalid value: Expected <=64 but received 65' }],
    ],
    ['a fraction', { ...valid, cpus: 1.5 }, [{ path: 'cpus', message: 'Invalid integer: Received 1.5' }]],
    [
      'an unknown nested key',
      { ...valid, server: { host: 'h', user: 'root' } },
      [{ path: 'server.user', message: 'Unknown argument' }],
    ],
    ['a missing nested key', { ...valid, server: {} }, [{ path: 'server.host', message: 'Required' }]],
    [
      'a wrong nested type',
      { ...valid, server: { host: 'h', port: '22' } },
      [{ path: 'server.port', message: 'Invalid type: Expected number but received "22"' }],
    ],
    [
      'an unknown key inside an array item',
      { ...valid, tags: [{ key: 'a' }, { key: 'b', x: 1 }] },
      [{ path: 'tags.1.x', message: 'Unknown argument' }],
    ],
    [
      'an unknown key under a nullable',
      { ...valid, note: { text: 't', extra: true } },
      [{ path: 'note.extra', message: 'Unknown argument' }],
    ],
  ])('refuses %s with a dotted path', (_label, input, expected) => {
    expect(issues(input)).toEqual(expected);
  });

  it('reports every issue at once, not just the first', () => {
    const found = issues({ name: 1, role: 'x', extra: 1, server: { y: 2 } });
    expect(found.map((issue) => issue.path).sort()).toEqual([
      'extra',
      'name',
      'role',
      'server.host',
      'server.y',
    ]);
  });

  it.each([null, undefined, 'text', 42, [], [valid]])('refuses a non-object input (%j)', (input) => {
    expect(issues(input)[0]?.path).toBe('');
  });

  it.each([
    [
      'top-level __proto__ from JSON.parse',
      '{"name":"web-1","role":"web","__proto__":{"admin":true}}',
      '__proto__',
    ],
    [
      'nested __proto__ from JSON.parse',
      '{"name":"web-1","role":"web","server":{"host":"h","__proto__":{"x":1}}}',
      'server.__proto__',
    ],
    [
      'constructor.prototype',
      '{"name":"web-1","role":"web","constructor":{"prototype":{"admin":true}}}',
      'constructor',
    ],
    [
      'prototype inside a record',
      '{"name":"web-1","role":"web","labels":{"prototype":"x"}}',
      'labels.prototype',
    ],
    [
      '__proto__ inside an array item',
      '{"name":"web-1","role":"web","tags":[{"key":"a","__proto__":{"y":1}}]}',
      'tags.0.__proto__',
    ],
  ])('refuses a prototype pollution attempt: %s', (_label, json, path) => {
    const found = issues(JSON.parse(json));
    expect(found).toContainEqual({ path, message: expect.stringMatching(/^Forbidden key/) });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it.each([
    ['a lone high surrogate in a value', { ...valid, name: 'web\uD800' }, 'name'],
    ['a lone low surrogate in a nested value', { ...valid, server: { host: '\uDC00h' } }, 'server.host'],
    ['a lone surrogate in an array item', { ...valid, tags: [{ key: 'a\uDFFF' }] }, 'tags.0.key'],
    ['a lone surrogate in a key', { ...valid, labels: { 'k\uD83D': 'v' } }, 'labels'],
  ])('refuses a string that is not well-formed UTF-16: %s', (_label, input, path) => {
    expect(issues(input)).toContainEqual({ path, message: expect.stringMatching(/well-formed Unicode/) });
  });

  it('accepts a surrogate pair (an emoji is well-formed)', () => {
    expect(validateArgs(tool, { ...valid, labels: { mood: '\uD83D\uDE00' } }).ok).toBe(true);
  });

  it('refuses absurdly deep input without blowing the stack', () => {
    let deep: Record<string, unknown> = { key: 'a' };
    for (let i = 0; i < 10_000; i++) deep = { key: 'a', nested: deep };
    expect(issues({ ...valid, tags: [deep] })[0]?.message).toMatch(/Nested deeper/);
  });

  it('refuses an array where an object is expected, even when every key is optional', () => {
    const lenient = defineTool({
      name: 'lenient',
      description: 'Only optional arguments.',
      risk: 'read',
      args: v.object({
        limit: v.optional(v.number()),
        filter: v.optional(v.object({ state: v.optional(v.string()) })),
      }),
      execute: () => null,
    });
    expect(validateArgs(lenient, {}).ok).toBe(true);
    expect(validateArgs(lenient, [])).toEqual({
      ok: false,
      issues: [{ path: '', message: 'Invalid type: Expected Object but received Array' }],
    });
    expect(validateArgs(lenient, { filter: [] })).toEqual({
      ok: false,
      issues: [{ path: 'filter', message: 'Invalid type: Expected Object but received Array' }],
    });
  });

  it('keeps variants working and strict', () => {
    const control = defineTool({
      name: 'hal_job_control',
      description: 'Control a job.',
      risk: 'write',
      args: v.object({
        command: v.variant('action', [
          v.object({ action: v.literal('cancel'), reason: v.string() }),
          v.object({ action: v.literal('retry') }),
        ]),
      }),
      execute: () => null,
    });
    expect(validateArgs(control, { command: { action: 'retry' } }).ok).toBe(true);
    expect(validateArgs(control, { command: { action: 'cancel', reason: 'stuck' } }).ok).toBe(true);
    expect(validateArgs(control, { command: { action: 'retry', force: true } })).toEqual({
      ok: false,
      issues: [{ path: 'command.force', message: 'Unknown argument' }],
    });
    expect(validateArgs(control, { command: { action: 'cancel' } })).toEqual({
      ok: false,
      issues: [{ path: 'command.reason', message: 'Required' }],
    });
  });

  it('never throws, even when a custom check throws', () => {
    const fragile = defineTool({
      name: 'fragile',
      description: 'Has a buggy check.',
      risk: 'read',
      args: v.object({
        id: v.pipe(
          v.string(),
          v.check(() => {
            throw new Error('boom');
          }),
        ),
      }),
      execute: () => null,
    });
    const result = validateArgs(fragile, { id: 'x' });
    expect(result.ok).toBe(false);
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(validateArgs(tool, hostile)).toEqual({
      ok: false,
      issues: [{ path: '', message: 'Arguments could not be validated: trap' }],
    });
  });
});
