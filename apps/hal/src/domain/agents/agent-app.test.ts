import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/foundation.test-support.js';
import { createAgentDirectory } from './agent-directory.js';
import { createLocalAgent } from './agent-local.js';
import { type AgentCommand, createAgentQueue } from './agent-queue.js';
import { createAgentToken, createStaticAgentTokenResolver, hashAgentToken } from './agent-token.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('/agent/api inside the HAL app', () => {
  it('uses its own bearer auth, outside the operator session and CSRF checks', async () => {
    const token = createAgentToken();
    const queue = createAgentQueue({ pickupTimeoutMs: 10_000 });
    t = await createTestApp({
      build: (deps) => {
        deps.agents = createAgentDirectory({
          local: createLocalAgent({ serverId: 'hal-local', dataDir: deps.config.dataDir }),
          remote: {
            queue,
            resolveAgentToken: createStaticAgentTokenResolver([
              { serverId: 'srv-r', tokenHash: hashAgentToken(token) },
            ]),
          },
        });
      },
    });
    const app = t;
    const anonymous = await app.request('/agent/api/next?waitS=0');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Bearer');
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');

    const remote = app.deps.agents?.get('srv-r');
    if (!remote) throw new Error('no remote agent');
    const health = remote.health('portal');
    const auth = { authorization: `Bearer ${token}` };
    const poll = await app.request('/agent/api/next?waitS=0', { headers: auth });
    expect(poll.status).toBe(200);
    const { serverId, command } = (await poll.json()) as { serverId: string; command: AgentCommand };
    expect(serverId).toBe('srv-r');
    expect(command).toMatchObject({ op: 'health', args: { module: 'portal' } });

    // No session cookie and no CSRF token: the agent's bearer token alone authorises the answer.
    const answer = await app.request(`/agent/api/results/${command.id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, result: { ok: true, detail: 'fine' }, logs: [] }),
    });
    expect(answer.status).toBe(204);
    expect(await health).toEqual({ ok: true, detail: 'fine' });

    const malformed = await app.request('/agent/api/results/whatever', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: 'yes', extra: 1 }),
    });
    expect(malformed.status).toBe(400);
    const refusal = (await malformed.json()) as {
      error: { code: string; issues: Array<{ path: string }> };
    };
    expect(refusal.error.code).toBe('validation_failed');
    expect(refusal.error.issues.map((issue) => issue.path).sort()).toEqual(['extra', 'ok']);

    // A body without a length that grows past the limit is 413, not taken for a malformed result.
    const chunk = new TextEncoder().encode(`{"ok":true,"logs":["${'x'.repeat(64 * 1024)}`);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length;
        if (sent > 2 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const tooLarge = await app.request(`/agent/api/results/${command.id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('answers 404 when remote agents are not enabled', async () => {
    t = await createTestApp();
    const response = await t.request('/agent/api/next?waitS=0', {
      headers: { authorization: `Bearer ${createAgentToken()}` },
    });
    expect(response.status).toBe(404);
  });
});
