import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditActions, createTestCore, rejection, type TestCore } from './core.test-support.js';
import { LOCAL_SERVER_ID } from './hal-core.js';

const operator = 'operator:op1' as const;

describe('servers', () => {
  let t: TestCore;
  beforeEach(async () => {
    t = await createTestCore();
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates the local server at start-up, active and idempotent across restarts', async () => {
    const { servers } = await t.core.servers.list();
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({
      id: LOCAL_SERVER_ID,
      kind: 'local',
      state: 'active',
      name: 'hal-test-host',
    });
    await t.core.stop();
    await t.core.start();
    expect((await t.core.servers.list()).servers).toHaveLength(1);
  });

  it('walks pending → active → maintenance → active → isolated → deleted with one audit entry each', async () => {
    const { server } = await t.core.servers.create(operator, { name: 'web-1', role: 'web' });
    expect(server).toMatchObject({ state: 'pending', kind: 'remote', hasAgentToken: false });
    expect((await t.core.servers.approve(operator, { id: server.id })).server.state).toBe('active');
    expect((await t.core.servers.setMaintenance(operator, { id: server.id, on: true })).server.state).toBe(
      'maintenance',
    );
    expect((await t.core.servers.setMaintenance(operator, { id: server.id, on: false })).server.state).toBe(
      'active',
    );
    const isolated = await t.core.servers.isolate(operator, { id: server.id, reason: 'suspicious logins' });
    expect(isolated.server).toMatchObject({ state: 'isolated', isolatedReason: 'suspicious logins' });
    expect((await t.core.servers.delete(operator, { id: server.id })).server.state).toBe('deleted');

    const actions = await auditActions(t.audit);
    expect(actions.slice(-6)).toEqual([
      'server.create',
      'server.approve',
      'server.maintenance',
      'server.maintenance',
      'server.isolate',
      'server.delete',
    ]);
    const { entries } = await t.audit.list({ actionPrefix: 'server.isolate' });
    expect(entries[0]).toMatchObject({ actor: operator, target: `server:${server.id}` });
    expect(entries[0]?.details).toMatchObject({
      before: { state: 'active' },
      after: { state: 'isolated' },
      reason: 'suspicious logins',
    });
    // Deleted servers leave the default list but stay readable.
    expect((await t.core.servers.list()).servers.map((s) => s.id)).not.toContain(server.id);
    expect((await t.core.servers.get({ id: server.id })).server.state).toBe('deleted');
  });

  it('refuses invalid transitions with specific codes', async () => {
    const { server } = await t.core.servers.create(operator, { name: 'db-1', role: 'db' });
    expect((await rejection(t.core.servers.setMaintenance(operator, { id: server.id, on: true }))).code).toBe(
      'server_not_active',
    );
    await t.core.servers.approve(operator, { id: server.id });
    const again = await rejection(t.core.servers.approve(operator, { id: server.id }));
    expect(again.code).toBe('server_not_pending');
    expect(again.status).toBe(409);
    expect(
      (await rejection(t.core.servers.setMaintenance(operator, { id: server.id, on: false }))).code,
    ).toBe('invalid_state');
    expect(
      (await rejection(t.core.servers.isolate(operator, { id: LOCAL_SERVER_ID, reason: 'x' }))).code,
    ).toBe('server_is_local');
    expect((await rejection(t.core.servers.delete(operator, { id: LOCAL_SERVER_ID }))).code).toBe(
      'server_is_local',
    );
    expect((await rejection(t.core.servers.create(operator, { name: 'db-1', role: 'db' }))).code).toBe(
      'conflict',
    );
    await t.core.servers.delete(operator, { id: server.id });
    expect((await rejection(t.core.servers.isolate(operator, { id: server.id, reason: 'late' }))).code).toBe(
      'invalid_state',
    );
    // A deleted server's name can be reused.
    expect((await t.core.servers.create(operator, { name: 'db-1', role: 'db' })).server.state).toBe(
      'pending',
    );
  });

  it('answers 404 for unknown ids and names the bad field on validation errors', async () => {
    const missing = await rejection(t.core.servers.approve(operator, { id: 'srv_nope' }));
    expect(missing.code).toBe('not_found');
    expect(missing.status).toBe(404);
    const invalid = await rejection(t.core.servers.create(operator, { name: 'Bad Name!', role: 'web' }));
    expect(invalid.code).toBe('validation_failed');
    expect(invalid.details.issues).toEqual([expect.objectContaining({ path: 'name' })]);
    const extra = await rejection(
      t.core.servers.create(operator, { name: 'ok', role: 'web', shell: 'rm' } as never),
    );
    expect(extra.code).toBe('validation_failed');
    expect(extra.details.issues).toEqual([expect.objectContaining({ path: 'shell' })]);
  });

  it('pages with limit and cursor', async () => {
    for (let i = 0; i < 5; i++) await t.core.servers.create(operator, { name: `node-${i}`, role: 'worker' });
    const first = await t.core.servers.list({ limit: 4 });
    expect(first.servers).toHaveLength(4);
    expect(first.nextCursor).not.toBeNull();
    const second = await t.core.servers.list({ limit: 4, cursor: first.nextCursor ?? undefined });
    expect(second.servers).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.servers, ...second.servers].map((s) => s.id);
    expect(new Set(ids).size).toBe(6);
    expect((await rejection(t.core.servers.list({ limit: 500 }))).code).toBe('validation_failed');
  });

  it('samples real metrics from the local agent and keeps the history', async () => {
    const first = await t.core.servers.metrics({ id: LOCAL_SERVER_ID });
    expect(first.current?.memory.totalBytes).toBeGreaterThan(0);
    expect(first.current?.disk.totalBytes).toBeGreaterThan(0);
    await t.core.servers.metrics({ id: LOCAL_SERVER_ID });
    const { history } = await t.core.servers.metrics({ id: LOCAL_SERVER_ID, limit: 10 });
    expect(history).toHaveLength(3);
    expect((await t.core.servers.get({ id: LOCAL_SERVER_ID })).metrics?.load).toHaveLength(3);
  });

  it('issues an agent token once, keeps only its hash, and resolves it while the server may talk', async () => {
    const { server } = await t.core.servers.create(operator, { name: 'edge-1', role: 'edge' });
    const { token, server: withToken } = await t.core.servers.issueAgentToken(operator, { id: server.id });
    expect(withToken.hasAgentToken).toBe(true);
    const row = await t.db
      .selectFrom('servers')
      .selectAll()
      .where('id', '=', server.id)
      .executeTakeFirstOrThrow();
    expect(row.agent_token_hash).not.toContain(token);
    expect(await t.core.servers.resolveAgentToken(token)).toBeUndefined(); // still pending
    await t.core.servers.approve(operator, { id: server.id });
    expect(await t.core.servers.resolveAgentToken(token)).toBe(server.id);
    await t.core.servers.isolate(operator, { id: server.id, reason: 'test' });
    expect(await t.core.servers.resolveAgentToken(token)).toBeUndefined();
    const { entries } = await t.audit.list({ actionPrefix: 'server.agent_token' });
    expect(JSON.stringify(entries)).not.toContain(token);
  });
  it('samples servers with agents on a schedule and drops samples past metrics.retention_days', async () => {
    await t.db
      .insertInto('server_metrics')
      .values({ server_id: LOCAL_SERVER_ID, at: '2026-10-01T00:00:00.000Z', data: '{}' })
      .execute();
    await t.core.servers.create(operator, { name: 'no-agent', role: 'web' });
    await t.core.sampleMetrics();
    const rows = await t.db.selectFrom('server_metrics').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.server_id).toBe(LOCAL_SERVER_ID);
    expect(JSON.parse(rows[0]?.data ?? '{}').memory.totalBytes).toBeGreaterThan(0);
  });

  it('shows the local host on the overview right after start-up, before the first interval', async () => {
    const fresh = await createTestCore({ metricsIntervalMs: 3_600_000 });
    try {
      const { local } = await fresh.core.overview();
      expect(local?.metrics?.memory.totalBytes).toBeGreaterThan(0);
      expect(local?.metrics?.disk.totalBytes).toBeGreaterThan(0);
    } finally {
      await fresh.close();
    }
  });
});
