import type { Debate, DebateRound } from '@hal-ai/spec';
import type { PanelApi } from './panel-api.js';
import type { DebateDetail } from './panel-debate-state.js';

/** A debate view with test defaults (SPEC §14 shape). */
export function testDebate(overrides: Partial<Debate> = {}): Debate {
  return {
    id: 'd1',
    roomId: 'r-debate',
    topic: '탭 대 스페이스',
    slug: '탭-대-스페이스-d1',
    status: 'running',
    moderatorId: 'mod',
    debaterIds: ['c1', 'c2'],
    round: 0,
    maxRounds: 8,
    tokensUsed: 0,
    tokenBudget: 200_000,
    agreementStreak: 0,
    lastVerdict: null,
    question: null,
    reason: null,
    document: { version: 0, text: '' },
    conclusion: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A completed round with test defaults. */
export function testRound(n: number, overrides: Partial<DebateRound> = {}): DebateRound {
  return {
    n,
    speakerId: n % 2 === 1 ? 'c1' : 'c2',
    input: `Input of round ${n}`,
    reply: `Reply of round ${n}`,
    verdict: {
      decision: 'continue',
      agreement_level: 'partial',
      reason: `Reason ${n}`,
      agreed: [`agreed ${n}`],
      disputed: [],
    },
    documentVersion: n,
    ...overrides,
  };
}

/** A debate detail (`GET …/debates/:id`) after `rounds` rounds. */
export function testDetail(rounds: number, debate: Partial<Debate> = {}): DebateDetail {
  const list = Array.from({ length: rounds }, (_, index) => testRound(index + 1));
  return {
    debate: testDebate({
      round: rounds,
      document: { version: rounds, text: `# Doc\n\n- point ${rounds}` },
      ...debate,
    }),
    rounds: list,
    documents: Array.from({ length: rounds + 1 }, (_, version) => ({
      version,
      round: version,
      text: version === 0 ? '' : `# Doc\n\n- point ${version}`,
    })),
    diff: {
      from: Math.max(0, rounds - 1),
      to: rounds,
      lines: [
        { kind: 'same', text: '# Doc' },
        { kind: 'removed', text: `- point ${rounds - 1}` },
        { kind: 'added', text: `- point ${rounds}` },
      ],
    },
  };
}

/** A scripted panel API: `get`/`send` answer from handlers and record every call. */
export function createScriptedApi(handlers: {
  get?: (path: string) => unknown;
  send?: (method: string, path: string, body: unknown) => unknown;
}): PanelApi & { calls: Array<{ method: string; path: string; body?: unknown }> } {
  const calls: Array<{ method: string; path: string; body?: unknown }> = [];
  return {
    calls,
    baseUrl: '',
    fetch: () => Promise.reject(new Error('no fetch in this test')),
    session: async () => ({ operator: { id: 'o', username: 'admin' }, csrfToken: 'x', recentAuthUntil: 0 }),
    async get<T>(path: string) {
      calls.push({ method: 'GET', path });
      return (await handlers.get?.(path)) as T;
    },
    async send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) {
      calls.push({ method, path, body });
      return (await handlers.send?.(method, path, body)) as T;
    },
  };
}
