import { randomBytes } from 'node:crypto';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_ROUTES } from '../../src/domain/console-api/hal-operation-routes.js';
import { isNoFace } from '../../src/domain/operations/operation-registry.js';
import { fakeOpenAIConnection } from '../fake-connection.test-support.js';
import { createTestApp, type TestApp, type TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

/** A route pattern as a concrete path (`:id`, `:id{regex}` and `*` become `x`; alternatives take the first). */
function concrete(pattern: string): string {
  return pattern
    .replace(/:[A-Za-z0-9_]+\{([A-Za-z0-9_-]+)\|[^}]*\}/g, '$1')
    .replace(/:[A-Za-z0-9_]+(\{[^}]*\})?\??/g, 'x')
    .replace(/\*/g, 'x');
}

async function codeOf(response: Response): Promise<string | undefined> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

let hal: TestApp;
let fake: FakeServer;
let session: TestSession;
let connectionId: string;

/** Rows in every table: a refused request changes none of them (the session's own last-seen time aside). */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name
  `.execute(hal.deps.db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const result = await sql<{ count: number }>`select count(*) as count from ${sql.table(name)}`.execute(
      hal.deps.db,
    );
    counts[name] = Number(result.rows[0]?.count ?? 0);
  }
  return counts;
}

/** How many audit entries exist: a refused request writes none (the action never ran). */
async function auditCount(): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await hal.deps.audit.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    count += page.entries.length;
    if (!page.nextCursor) return count;
    cursor = page.nextCursor;
  }
}

beforeAll(async () => {
  hal = await createTestApp();
  const apiKey = randomBytes(24).toString('base64url');
  fake = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-test' }] });
  session = await hal.login();
  const created = await hal.request('/ops/api/ai/connections', {
    method: 'POST',
    session,
    json: fakeOpenAIConnection(fake.baseUrl, apiKey),
  });
  expect(created.status).toBe(201);
  connectionId = ((await created.json()) as { connection: { id: string } }).connection.id;
});
afterAll(async () => {
  await hal.close();
  await fake.close();
});

describe('hostile: re-authentication on every sensitive route', () => {
  it('answers 401 reauth_required on each requireRecent route once the window has passed, and changes nothing', async (context) => {
    // Every route the app guards with requireRecent, read from the app itself: the guard is a named middleware,
    // so a new sensitive route (an operation, a connection, shell, approval or settings route) is covered at once.
    const seen = new Set<string>();
    const guarded = hal.app.routes
      .filter((route) => route.handler.name === 'requireRecent')
      .map((route) => ({ method: route.method, path: concrete(route.path) }))
      .filter((route) => {
        const key = `${route.method} ${route.path}`;
        if (route.method === 'ALL' || seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    const paths = guarded.map((route) => `${route.method} ${route.path}`);
    // The families SPEC §2 names are all there (a sign the derivation still finds the guard).
    for (const expected of [
      'POST /ops/api/ai/connections',
      'DELETE /ops/api/ai/connections/x',
      'POST /ops/api/ai/connections/x/secret',
      'POST /ops/api/ai/connections/x/oauth/start',
      'POST /ops/api/ai/shell',
    ]) {
      expect(paths).toContain(expected);
    }
    expect(paths.some((entry) => entry.includes('/approve'))).toBe(true);
    // Every HAL operation with a JSON face (each is a write or high operation) is among them.
    for (const face of Object.values(OPERATION_ROUTES)) {
      if (isNoFace(face)) continue;
      expect(paths).toContain(`${face.method.toUpperCase()} ${concrete(`/ops/api/hal${face.path}`)}`);
    }
    // The real connection for the routes whose guard sits in the handler (a key change, a widened preset).
    const real = guarded.map((route) => ({
      ...route,
      path: route.path.replace('/connections/x', `/connections/${connectionId}`),
    }));
    const inHandler = [
      {
        method: 'PATCH',
        path: `/ops/api/ai/connections/${connectionId}`,
        json: { apiKey: randomBytes(16).toString('hex') },
      },
      {
        method: 'PATCH',
        path: `/ops/api/ai/connections/${connectionId}`,
        json: { tools: { preset: 'read_write' } },
      },
    ];

    const before = await rowCounts();
    const auditBefore = await auditCount();
    // The login opened the window; now it has passed (the session itself is still valid).
    hal.clock.advance((hal.deps.config.reauthWindowS + 1) * 1000);
    const stillSignedIn = await hal.request('/ops/api/session', { session });
    expect(stillSignedIn.status).toBe(200);

    const { tally, check } = createTally();
    for (const target of [...real.map((route) => ({ ...route, json: {} })), ...inHandler]) {
      const response = await hal.request(target.path, { method: target.method, session, json: target.json });
      const code = await codeOf(response);
      check(
        response.status === 401 && code === 'reauth_required',
        `${target.method} ${target.path}: ${response.status} ${code}`,
      );
    }
    const after = await rowCounts();
    const audited = (await auditCount()) - auditBefore;
    // Sessions and rate-limit rows are the request's own bookkeeping; every other table is as it was.
    const changed = Object.keys({ ...before, ...after }).filter(
      (table) =>
        before[table] !== after[table] && !['sessions', 'login_attempts', 'login_counters'].includes(table),
    );
    recordFigures(context, 're-auth on sensitive routes', {
      ...tally,
      badExecutions: changed.length + audited,
    });
    expect(tally.misses).toEqual([]);
    expect(changed).toEqual([]);
    expect(audited).toBe(0);
    expect(tally.tried).toBe(real.length + inHandler.length);
  });
});
