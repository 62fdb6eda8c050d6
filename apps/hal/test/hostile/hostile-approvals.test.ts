import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

const PROPOSALS = 50;
const CLICKS_EACH = 20;

let hal: TestApp;
let session: TestSession;

beforeAll(async () => {
  hal = await createTestApp();
  session = await hal.login();
});
afterAll(() => hal.close());

describe('hostile: approval races', () => {
  it(`${PROPOSALS * CLICKS_EACH} concurrent approvals across ${PROPOSALS} proposals execute each exactly once`, async (context) => {
    const actions = [];
    for (let index = 0; index < PROPOSALS; index++) {
      actions.push(
        await hal.deps.ai.engine.createExternalProposal({
          tool: 'hal_incident_open',
          args: { key: `race.${index}`, title: `race ${index}`, severity: 'minor' },
          source: 'mcp',
          clientName: 'hostile',
        }),
      );
    }
    // A prompt-injected "approve" from the model side is no approval: nothing ran before an operator clicked.
    expect((await hal.deps.core.incidents.list()).incidents).toEqual([]);
    const clicks = actions.flatMap((action) =>
      Array.from({ length: CLICKS_EACH }, () =>
        hal.request(`/ops/api/ai/actions/${action.id}/approve`, { method: 'POST', session, json: {} }),
      ),
    );
    const answers = await Promise.all(
      clicks.map(async (pending) => {
        const response = await pending;
        const body = (await response.json()) as { error?: { code: string } };
        return { status: response.status, code: body.error?.code };
      }),
    );
    await hal.deps.ai.engine.idle();
    const { tally, check } = createTally();
    const won = answers.filter((answer) => answer.status === 200).length;
    for (const answer of answers.filter((entry) => entry.status !== 200)) {
      check(answer.status === 409 && answer.code === 'action_not_pending', `${answer.status} ${answer.code}`);
    }
    const incidents = (await hal.deps.core.incidents.list()).incidents;
    const keys = new Set(incidents.map((incident) => incident.key));
    // Every proposal ran once: no duplicate and none lost.
    const duplicates = incidents.length - keys.size;
    const missing = PROPOSALS - keys.size;
    recordFigures(context, 'approval races', {
      ...tally,
      badExecutions: duplicates + Math.max(0, won - PROPOSALS),
    });
    expect(won).toBe(PROPOSALS);
    expect(duplicates).toBe(0);
    expect(missing).toBe(0);
    expect(tally.misses).toEqual([]);
  }, 120_000);
});
