import { randomBytes } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createAgentQueue } from './agent-queue.js';
import {
  createAgentToken,
  createStaticAgentTokenResolver,
  hashAgentToken,
  isAgentTokenShaped,
  verifyAgentToken,
} from './agent-token.js';

const artifact = {
  module: 'portal',
  version: '1.0.0',
  path: '/srv/a.tar.gz',
  sha256: 'a'.repeat(64),
  size: 1,
};

describe('createAgentQueue', () => {
  it('delivers a command only to its own server, and only that server may answer it', async () => {
    const queue = createAgentQueue({ pickupTimeoutMs: 10_000 });
    const pending = queue.request('srv-a', 'deploy', { module: 'portal' }, { artifact });
    expect(await queue.next('srv-b', { waitMs: 0 })).toBeNull();
    const command = await queue.next('srv-a', { waitMs: 0 });
    expect(command).toMatchObject({ op: 'deploy', args: { module: 'portal' } });
    if (!command) throw new Error('no command');

    expect(queue.artifactFor('srv-a', 'portal', '1.0.0')).toEqual(artifact);
    expect(queue.artifactFor('srv-b', 'portal', '1.0.0')).toBeUndefined();
    expect(() => queue.complete('srv-b', command.id, { ok: true, logs: [] })).toThrow(HalError);

    queue.complete('srv-a', command.id, {
      ok: true,
      result: { current: '1.0.0', previous: null },
      logs: ['x'],
    });
    expect(await pending).toEqual({ ok: true, result: { current: '1.0.0', previous: null }, logs: ['x'] });
    // Settled: the artifact is no longer downloadable and a second answer is refused.
    expect(queue.artifactFor('srv-a', 'portal', '1.0.0')).toBeUndefined();
    expect(() => queue.complete('srv-a', command.id, { ok: true, logs: [] })).toThrow(HalError);
  });

  it('hands a queued command to a poll already waiting, and puts it back first when that poll died', async () => {
    const queue = createAgentQueue({ pickupTimeoutMs: 10_000 });
    const waiting = queue.next('srv-a', { waitMs: 10_000 });
    const first = queue.request('srv-a', 'metrics', {});
    const delivered = await waiting;
    if (!delivered) throw new Error('no command');
    void queue.request('srv-a', 'modules', {}).catch(() => {});
    queue.requeue('srv-a', delivered.id);
    const again = await queue.next('srv-a', { waitMs: 0 });
    expect(again?.id).toBe(delivered.id);
    queue.complete('srv-a', delivered.id, { ok: true, result: 1, logs: [] });
    expect((await first).result).toBe(1);
  });

  it('fails with agent_unavailable when nobody collects the command, and a cancelled poll takes nothing', async () => {
    const queue = createAgentQueue({ pickupTimeoutMs: 50 });
    const poll = new AbortController();
    const waiting = queue.next('srv-a', { waitMs: 10_000, signal: poll.signal });
    poll.abort();
    expect(await waiting).toBeNull();
    const error = await queue.request('srv-a', 'metrics', {}).catch((caught: unknown) => caught);
    expect(HalError.isInstance(error) && error.code).toBe('agent_unavailable');
    expect(queue.lastSeen('srv-a')).not.toBeNull();
    expect(queue.lastSeen('srv-z')).toBeNull();
  });
});

describe('agent tokens', () => {
  it('are 32 random bytes in base64url, stored and compared only as SHA-256', () => {
    const token = createAgentToken();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(isAgentTokenShaped(token)).toBe(true);
    expect(createAgentToken()).not.toBe(token);
    const hash = hashAgentToken(token);
    expect(hash).toMatch(/^[a-f0-9]{64}$/);
    expect(hash).not.toContain(token);
    expect(verifyAgentToken(token, hash)).toBe(true);
    expect(verifyAgentToken(createAgentToken(), hash)).toBe(false);
    expect(verifyAgentToken('short', hashAgentToken('short'))).toBe(false);

    const fixed = createAgentToken(() => Buffer.alloc(32, 7));
    expect(fixed).toBe(Buffer.alloc(32, 7).toString('base64url'));

    const other = randomBytes(32).toString('base64url');
    const resolve = createStaticAgentTokenResolver([
      { serverId: 'srv-a', tokenHash: hash },
      { serverId: 'srv-b', tokenHash: hashAgentToken(other) },
    ]);
    expect(resolve(token)).toBe('srv-a');
    expect(resolve(other)).toBe('srv-b');
    expect(resolve(createAgentToken())).toBeNull();
  });
});
