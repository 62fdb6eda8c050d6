import { HalError } from '@hal-ai/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineTool } from './tool-definition.js';
import { executeTool } from './tool-execution.js';
import { createToolRegistry, type ToolSelection } from './tool-registry.js';

interface Context {
  calls: number;
  operator: string;
}

function setup() {
  const context: Context = { calls: 0, operator: 'admin' };
  const registry = createToolRegistry<Context>([
    defineTool({
      name: 'hal_server_get',
      description: 'One server.',
      risk: 'read',
      args: v.object({
        id: v.pipe(v.string(), v.minLength(1), v.maxLength(8)),
        verbose: v.optional(v.boolean(), false),
      }),
      execute: (ctx: Context, args) => {
        ctx.calls += 1;
        return { ...args, by: ctx.operator };
      },
    }),
    defineTool({
      name: 'hal_server_delete',
      description: 'Delete a server.',
      risk: 'high',
      args: v.object({ id: v.string() }),
      identifiers: ({ id }) => [id],
      execute: (ctx: Context) => {
        ctx.calls += 1;
        return 'deleted';
      },
    }),
    defineTool({
      name: 'hal_settings_set',
      description: 'Set a setting.',
      risk: 'high',
      args: v.object({ key: v.string() }),
      identifiers: ({ key }) => [key],
      execute: async (ctx: Context, { key }) => {
        ctx.calls += 1;
        throw new HalError('secret_not_allowed', `Setting ${key} is confidential`, {
          details: { issues: [{ path: 'key', message: 'confidential' }], extra: 1 },
        });
      },
    }),
    defineTool({
      name: 'hal_buggy',
      description: 'Crashes.',
      risk: 'read',
      args: v.object({}),
      execute: (ctx: Context) => {
        ctx.calls += 1;
        throw new Error('SQLITE_CORRUPT: /var/lib/hal/data.db at offset 4096 (internal detail)');
      },
    }),
    defineTool({
      name: 'hal_throws_string',
      description: 'Throws a non-error.',
      risk: 'read',
      args: v.object({}),
      execute: (ctx: Context) => {
        ctx.calls += 1;
        throw 'nope';
      },
    }),
  ]);
  return { context, registry };
}

describe('executeTool', () => {
  it('runs a valid call with the parsed arguments (defaults applied) and the context', async () => {
    const { context, registry } = setup();
    await expect(executeTool(registry, 'hal_server_get', { id: 'srv-1' }, context)).resolves.toEqual({
      ok: true,
      output: { id: 'srv-1', verbose: false, by: 'admin' },
    });
    expect(context.calls).toBe(1);
  });

  it('does not execute an unknown tool', async () => {
    const { context, registry } = setup();
    for (const name of ['hal_nope', '__proto__', 'constructor', 'toString', '']) {
      const outcome = await executeTool(registry, name, {}, context);
      expect(outcome).toEqual({ ok: false, error: { code: 'not_found', message: expect.any(String) } });
    }
    expect(context.calls).toBe(0);
  });

  it('does not execute a tool the selection disables', async () => {
    const { context, registry } = setup();
    const cases: [string, ToolSelection][] = [
      ['hal_server_delete', { preset: 'read_only' }],
      ['hal_server_delete', { preset: 'read_write' }],
      ['hal_server_get', { preset: 'none' }],
      ['hal_server_get', { preset: 'custom', enabled: ['hal_server_delete'] }],
      ['hal_server_get', { preset: 'custom' }],
    ];
    for (const [name, selection] of cases) {
      const outcome = await executeTool(registry, name, { id: 'srv-1' }, context, selection);
      expect(outcome.ok === false && outcome.error.code).toBe('forbidden');
    }
    expect(context.calls).toBe(0);
    const allowed = await executeTool(registry, 'hal_server_get', { id: 'srv-1' }, context, {
      preset: 'custom',
      enabled: ['hal_server_get'],
    });
    expect(allowed.ok).toBe(true);
    expect(context.calls).toBe(1);
  });

  it('does not execute with invalid arguments and returns the issues', async () => {
    const { context, registry } = setup();
    const inputs = [
      { id: 'srv-1', extra: true },
      { id: '' },
      { id: 'much-too-long' },
      {},
      null,
      'srv-1',
      JSON.parse('{"id":"srv-1","__proto__":{"admin":true}}'),
    ];
    for (const input of inputs) {
      const outcome = await executeTool(registry, 'hal_server_get', input, context);
      expect(outcome.ok).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.error.code).toBe('validation_failed');
      expect(outcome.error.issues?.length).toBeGreaterThan(0);
    }
    expect(context.calls).toBe(0);
    const outcome = await executeTool(registry, 'hal_server_get', { id: 'srv-1', extra: true }, context);
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'validation_failed',
        message: 'Invalid arguments for "hal_server_get"',
        issues: [{ path: 'extra', message: 'Unknown argument' }],
      },
    });
  });

  it('maps a thrown HalError to its code, message and issues', async () => {
    const { context, registry } = setup();
    await expect(
      executeTool(registry, 'hal_settings_set', { key: 'smtp.password' }, context),
    ).resolves.toEqual({
      ok: false,
      error: {
        code: 'secret_not_allowed',
        message: 'Setting smtp.password is confidential',
        issues: [{ path: 'key', message: 'confidential' }],
      },
    });
  });

  it('maps anything else to internal_error without leaking the internal message', async () => {
    const { context, registry } = setup();
    for (const name of ['hal_buggy', 'hal_throws_string']) {
      const outcome = await executeTool(registry, name, {}, context);
      expect(outcome).toEqual({
        ok: false,
        error: { code: 'internal_error', message: `Tool "${name}" failed unexpectedly` },
      });
    }
    expect(context.calls).toBe(2);
  });

  it('never throws, even with a broken registry', async () => {
    const broken = {
      get() {
        throw new Error('registry exploded');
      },
    } as unknown as Parameters<typeof executeTool>[0];
    await expect(executeTool(broken, 'x', {}, {})).resolves.toEqual({
      ok: false,
      error: { code: 'internal_error', message: 'Tool "x" failed unexpectedly' },
    });
  });

  it('leaves policy to the caller: a high tool runs when asked directly', async () => {
    const { context, registry } = setup();
    await expect(executeTool(registry, 'hal_server_delete', { id: 'srv-1' }, context)).resolves.toEqual({
      ok: true,
      output: 'deleted',
    });
  });
});
