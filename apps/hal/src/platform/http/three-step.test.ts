import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestApp,
  TEST_SCRYPT_PARAMS,
  type TestApp,
  type TestSession,
} from '../../../test/foundation.test-support.js';
import { createOperator } from '../../domain/auth/auth-operators.js';
import { requireRecent } from './require-recent.js';
import { readConfirmation } from './three-step.js';

let t: TestApp;
let executed: string[];
afterEach(async () => {
  await t?.close();
});

async function setUp() {
  t = await createTestApp();
  executed = [];
  t.app.post('/ops/api/test/things/:id/destroy', requireRecent(t.deps), async (c) => {
    const id = c.req.param('id');
    await t.deps.threeStep.check({
      operatorId: c.get('operator').id,
      action: 'thing.destroy',
      target: `thing:${id}`,
      impact: { destroys: id, servers: 2 },
      identifiers: [id, 'production'],
      confirmation: readConfirmation(await c.req.json()),
    });
    executed.push(id);
    return c.json({ destroyed: id });
  });
  return t.login();
}

const destroy = (session: TestSession, id: string, json: unknown) =>
  t.request(`/ops/api/test/things/${id}/destroy`, { method: 'POST', session, json });

async function firstStep(session: TestSession, id = 'web-1'): Promise<string> {
  const response = await destroy(session, id, {});
  expect(response.status).toBe(409);
  const body = await response.json();
  expect(body.error.code).toBe('three_step_required');
  return body.error.confirmToken;
}

const confirmed = (confirmToken: string, identifiers: unknown = ['web-1', 'production']) => ({
  confirmToken,
  confirmImpact: true,
  confirmIdentifiers: identifiers,
  confirmExecute: true,
});

describe('threeStep', () => {
  it('answers the first request with 409, the impact, the identifiers and a token; executes once all three are confirmed', async () => {
    const session = await setUp();
    const first = await destroy(session, 'web-1', {});
    expect(first.status).toBe(409);
    const body = await first.json();
    expect(body.error).toMatchObject({
      code: 'three_step_required',
      impact: { destroys: 'web-1', servers: 2 },
      identifiers: ['web-1', 'production'],
    });
    expect(body.error.confirmToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(executed).toEqual([]);

    const final = await destroy(session, 'web-1', confirmed(body.error.confirmToken));
    expect(final.status).toBe(200);
    expect(executed).toEqual(['web-1']);
  });

  it('needs every confirmation: missing or false ones get 409 with a fresh token and nothing runs', async () => {
    const session = await setUp();
    const token = await firstStep(session);
    const incomplete = [
      { confirmToken: token },
      { confirmToken: token, confirmExecute: true, confirmIdentifiers: ['web-1', 'production'] },
      { confirmToken: token, confirmImpact: true, confirmIdentifiers: ['web-1', 'production'] },
      { confirmToken: token, confirmImpact: true, confirmExecute: true },
      {
        confirmToken: token,
        confirmImpact: 'true',
        confirmExecute: true,
        confirmIdentifiers: ['web-1', 'production'],
      },
      { confirmImpact: true, confirmExecute: true, confirmIdentifiers: ['web-1', 'production'] },
    ];
    for (const json of incomplete) {
      const response = await destroy(session, 'web-1', json);
      expect(response.status).toBe(409);
      const body = await response.json();
      expect(body.error.code).toBe('three_step_required');
      expect(body.error.confirmToken).not.toBe(token);
    }
    expect(executed).toEqual([]);
  });

  it('answers 400 identifiers_mismatch for a wrong element, order or count, and the token stays usable', async () => {
    const session = await setUp();
    const token = await firstStep(session);
    for (const identifiers of [
      ['web-2', 'production'],
      ['production', 'web-1'],
      ['web-1'],
      ['web-1', 'production', 'x'],
      'web-1',
    ]) {
      const response = await destroy(session, 'web-1', confirmed(token, identifiers));
      const body = await response.json();
      if (Array.isArray(identifiers)) {
        expect(response.status).toBe(400);
        expect(body.error.code).toBe('identifiers_mismatch');
      } else {
        expect(response.status).toBe(409);
      }
    }
    expect(executed).toEqual([]);
    expect((await destroy(session, 'web-1', confirmed(token))).status).toBe(200);
    expect(executed).toEqual(['web-1']);
  });

  it('refuses a replayed token with 409 three_step_required', async () => {
    const session = await setUp();
    const token = await firstStep(session);
    expect((await destroy(session, 'web-1', confirmed(token))).status).toBe(200);
    const replay = await destroy(session, 'web-1', confirmed(token));
    expect(replay.status).toBe(409);
    expect((await replay.json()).error.code).toBe('three_step_required');
    expect(executed).toEqual(['web-1']);
  });

  it("refuses another operator's token and a token for another target", async () => {
    const session = await setUp();
    const token = await firstStep(session);
    const bob = await createOperator({ ...t.deps, passwordParams: TEST_SCRYPT_PARAMS }, 'bob');
    const bobSession = await t.login('bob', bob.password);
    const foreign = await destroy(bobSession, 'web-1', confirmed(token));
    expect(foreign.status).toBe(409);
    const otherTarget = await destroy(session, 'web-2', confirmed(token, ['web-2', 'production']));
    expect(otherTarget.status).toBe(409);
    expect(executed).toEqual([]);
  });

  it('expires tokens after 5 minutes', async () => {
    const session = await setUp();
    const token = await firstStep(session);
    t.clock.advance(5 * 60 * 1000 + 1);
    const late = await destroy(session, 'web-1', confirmed(token));
    expect(late.status).toBe(409);
    expect(executed).toEqual([]);
    const fresh = (await late.json()).error.confirmToken;
    expect((await destroy(session, 'web-1', confirmed(fresh))).status).toBe(200);
  });

  it('lets only one of two simultaneous final requests through', async () => {
    const session = await setUp();
    const token = await firstStep(session);
    const [a, b] = await Promise.all([
      destroy(session, 'web-1', confirmed(token)),
      destroy(session, 'web-1', confirmed(token)),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(executed).toEqual(['web-1']);
  });

  it('asks again when the impact changed since the token was issued', async () => {
    t = await createTestApp();
    const check = (impact: unknown, confirmation = {}) =>
      t.deps.threeStep.check({
        operatorId: t.operator.id,
        action: 'x.y',
        target: 'x:1',
        impact,
        identifiers: ['x1'],
        confirmation,
      });
    const error = await check({ jobs: 1 }).catch((caught: unknown) => caught);
    const token = (error as { details: { confirmToken: string } }).details.confirmToken;
    const all = {
      confirmToken: token,
      confirmImpact: true,
      confirmIdentifiers: ['x1'],
      confirmExecute: true,
    };
    await expect(check({ jobs: 3 }, all)).rejects.toMatchObject({ code: 'three_step_required' });
    await expect(check({ jobs: 1 }, all)).resolves.toBeUndefined();
  });
});
