/**
 * The `RoomStore` contract as a test suite: every store (the memory reference here, the app's SQL store) runs the
 * same cases, so they cannot drift apart. The test runner is passed in (`describe`, `it`, `expect` of vitest, or
 * any runner with a Jest-compatible `expect`), so this module depends on no test framework.
 */
import type { NewActionRecord, NewRoomMessage, RoomStore } from '../room-store.js';

/** A store under test and how to dispose of it. */
export interface RoomStoreUnderTest {
  store: RoomStore;
  close(): Promise<void>;
}

/** The matchers the contract uses (a subset of Jest's and vitest's `expect`). */
export interface ContractAssertion {
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toBe(expected: unknown): void;
  toHaveLength(length: number): void;
  toBeUndefined(): void;
  toBeDefined(): void;
  toBeNull(): void;
  toBeGreaterThan(value: number): void;
  readonly rejects: { toMatchObject(expected: object): Promise<void> };
}

/** The test runner functions the contract is declared with (vitest's `describe`, `it` and `expect` fit). */
export interface ContractRunner {
  describe(name: string, body: () => void): void;
  it(name: string, test: () => Promise<void>): void;
  expect(actual: unknown): ContractAssertion;
}

function message(roomId: string, id: string, status: NewRoomMessage['status'] = 'complete'): NewRoomMessage {
  return {
    id,
    roomId,
    role: 'user',
    connectionId: null,
    model: null,
    content: [{ type: 'text', text: id }],
    status,
    error: null,
    relayDepth: 0,
    relayedFrom: null,
    usage: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

function action(roomId: string, id: string): NewActionRecord {
  return {
    id,
    roomId,
    connectionId: 'c1',
    source: 'model',
    tool: 'hal_server_approve',
    args: { serverId: 'srv_1' },
    risk: 'write',
    identifiers: [],
    status: 'proposed',
    createdAt: '2026-01-01T00:00:00.000Z',
    decidedBy: null,
    decidedAt: null,
    result: null,
    error: null,
    argsCanonical: '{"serverId":"srv_1"}',
    argsHash: 'hash',
    expiresAt: '2026-01-02T00:00:00.000Z',
    toolCallId: 'call_1',
    turnId: 'turn_1',
    clientName: null,
    reason: null,
    tainted: false,
  };
}

/**
 * Declares the behaviour every {@link RoomStore} must share, as one `describe` block named after the store.
 * `open` makes a fresh store per test (and `close` disposes of it).
 *
 * @example
 * import { describe, expect, it } from 'vitest';
 * describeRoomStoreContract('sql', async () => ({ store: createSqlStore(), close: async () => {} }), { describe, it, expect });
 */
export function describeRoomStoreContract(
  name: string,
  open: () => Promise<RoomStoreUnderTest>,
  runner: ContractRunner,
): void {
  const { describe, it, expect } = runner;
  describe(`RoomStore contract: ${name}`, () => {
    const withStore = (test: (store: RoomStore) => Promise<void>) => async () => {
      const { store, close } = await open();
      try {
        await test(store);
      } finally {
        await close();
      }
    };

    it(
      'lists the unified room first, then direct rooms in creation order, with rename rules',
      withStore(async (store) => {
        const direct = await store.ensureDirectRoom({ id: 'c1', name: 'Claude' });
        const unified = await store.ensureUnifiedRoom();
        await store.ensureDirectRoom({ id: 'c2', name: 'GPT' });
        expect((await store.listRooms()).map((room) => room.title)).toEqual(['통합', 'Claude', 'GPT']);
        expect(unified).toMatchObject({ kind: 'unified', fixed: true, connectionId: null, position: 0 });
        expect(await store.ensureUnifiedRoom()).toEqual(unified);
        expect(await store.ensureDirectRoom({ id: 'c1', name: 'Claude' })).toEqual(direct);
        await expect(store.renameRoom(unified.id, 'x')).rejects.toMatchObject({ code: 'room_fixed' });
        await expect(store.renameRoom('missing', 'x')).rejects.toMatchObject({ code: 'not_found' });
        expect((await store.renameRoom(direct.id, '  Ops  ')).title).toBe('Ops');
        expect((await store.ensureDirectRoom({ id: 'c1', name: 'Claude 2' })).title).toBe('Ops');
        expect((await store.renameRoom(direct.id, ' ')).title).toBe('Claude 2');
        expect((await store.renameRoom(direct.id, null)).title).toBe('Claude 2');
        expect((await store.findDirectRoom('c1'))?.id).toBe(direct.id);
        expect(await store.getRoom(direct.id)).toEqual(await store.findDirectRoom('c1'));
        await store.deleteDirectRoom('c1');
        expect(await store.findDirectRoom('c1')).toBeUndefined();
        expect(await store.getRoom(direct.id)).toBeUndefined();
        const again = await store.ensureDirectRoom({ id: 'c3', name: 'Gemini' });
        expect(again.position).toBeGreaterThan(1);
      }),
    );

    it(
      "creates debate rooms after the others and counts a room's token usage against its budget",
      withStore(async (store) => {
        await store.ensureUnifiedRoom();
        await store.ensureDirectRoom({ id: 'c1', name: 'Claude' });
        const debate = await store.createDebateRoom({ title: 'Tabs or spaces', tokenBudget: 1000 });
        expect(debate).toMatchObject({ kind: 'debate', fixed: false, connectionId: null, tokenBudget: 1000 });
        expect(debate.tokensUsed).toBe(0);
        expect((await store.listRooms()).map((room) => room.kind)).toEqual(['unified', 'direct', 'debate']);
        await Promise.all([store.addRoomUsage(debate.id, 300), store.addRoomUsage(debate.id, 450)]);
        expect((await store.getRoom(debate.id))?.tokensUsed).toBe(750);
        expect((await store.setRoomBudget(debate.id, null)).tokenBudget).toBeNull();
        const direct = await store.findDirectRoom('c1');
        expect(direct).toMatchObject({ tokenBudget: null, tokensUsed: 0 });
        expect((await store.setRoomBudget(direct?.id ?? '', 50)).tokenBudget).toBe(50);
        expect((await store.renameRoom(debate.id, ' Indentation ')).title).toBe('Indentation');
        await expect(store.addRoomUsage('missing', 1)).rejects.toMatchObject({ code: 'not_found' });
      }),
    );

    it(
      'assigns per-room increasing seq atomically, lists after a seq and keeps counting after a clear',
      withStore(async (store) => {
        const a = await store.ensureUnifiedRoom();
        const b = await store.ensureDirectRoom({ id: 'c', name: 'C' });
        const appended = await Promise.all(
          Array.from({ length: 20 }, (_, index) => store.appendMessage(message(a.id, `m${index}`))),
        );
        expect(new Set(appended.map((entry) => entry.seq)).size).toBe(20);
        expect((await store.appendMessage(message(b.id, 'other'))).seq).toBe(1);
        expect((await store.listMessages(a.id, { afterSeq: 18 })).map((entry) => entry.seq)).toEqual([
          19, 20,
        ]);
        expect((await store.listMessages(a.id, { limit: 1 })).map((entry) => entry.seq)).toEqual([20]);
        expect((await store.listMessages(a.id)).map((entry) => entry.seq)).toEqual(
          Array.from({ length: 20 }, (_, index) => index + 1),
        );
        await expect(store.appendMessage(message(a.id, 'm0'))).rejects.toMatchObject({ code: 'conflict' });
        await expect(store.appendMessage(message('missing', 'x'))).rejects.toMatchObject({
          code: 'not_found',
        });
        await store.clearMessages(a.id);
        expect(await store.listMessages(a.id)).toEqual([]);
        expect((await store.appendMessage(message(a.id, 'after'))).seq).toBeGreaterThan(20);
        expect(await store.listMessages(b.id)).toHaveLength(1);
      }),
    );

    it(
      'updates messages field by field and finds them by status',
      withStore(async (store) => {
        const room = await store.ensureUnifiedRoom();
        const stored = await store.appendMessage(message(room.id, 'm', 'streaming'));
        expect(stored).toMatchObject({ id: 'm', seq: 1, status: 'streaming', error: null, usage: null });
        expect((await store.listMessagesByStatus('streaming')).map((entry) => entry.id)).toEqual(['m']);
        const updated = await store.updateMessage('m', {
          status: 'failed',
          error: { code: 'provider_auth', message: 'no' },
          usage: { inputTokens: 3 },
        });
        expect(updated).toMatchObject({
          status: 'failed',
          error: { code: 'provider_auth', message: 'no' },
          usage: { inputTokens: 3 },
          content: [{ type: 'text', text: 'm' }],
        });
        expect(await store.getMessage('m')).toEqual(updated);
        expect(await store.listMessagesByStatus('streaming')).toEqual([]);
        await expect(store.updateMessage('nope', { status: 'complete' })).rejects.toMatchObject({
          code: 'not_found',
        });
        stored.content.push({ type: 'text', text: 'tampered' });
        expect((await store.getMessage('m'))?.content).toHaveLength(1);
      }),
    );

    it(
      'stores turns and lists them by status and room',
      withStore(async (store) => {
        const room = await store.ensureUnifiedRoom();
        const other = await store.ensureDirectRoom({ id: 'c', name: 'C' });
        const base = {
          connectionId: 'c',
          status: 'running' as const,
          relayDepth: 0 as const,
          relayedFrom: null,
          triggerMessageId: null,
          error: null,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        };
        await store.createTurn({ ...base, id: 't1', roomId: room.id });
        await store.createTurn({ ...base, id: 't2', roomId: other.id });
        expect((await store.listTurns({ status: 'running' })).map((turn) => turn.id).sort()).toEqual([
          't1',
          't2',
        ]);
        expect(
          (await store.listTurns({ status: 'running', roomId: room.id })).map((turn) => turn.id),
        ).toEqual(['t1']);
        const failed = await store.updateTurn('t1', {
          status: 'interrupted',
          error: { code: 'interrupted', message: 'restart' },
          updatedAt: '2026-01-01T00:00:01.000Z',
        });
        expect(failed).toMatchObject({ id: 't1', status: 'interrupted', error: { code: 'interrupted' } });
        expect(await store.getTurn('t1')).toEqual(failed);
        expect(await store.getTurn('nope')).toBeUndefined();
        await expect(
          store.updateTurn('nope', { status: 'complete', updatedAt: base.updatedAt }),
        ).rejects.toMatchObject({ code: 'not_found' });
      }),
    );

    it(
      'moves an action by compare-and-set exactly once, sharing the room counter',
      withStore(async (store) => {
        const room = await store.ensureUnifiedRoom();
        await store.appendMessage(message(room.id, 'm1'));
        const created = await store.createAction(action(room.id, 'a1'));
        expect(created.changeSeq).toBe(2);
        expect(created).toMatchObject({
          status: 'proposed',
          args: { serverId: 'srv_1' },
          result: null,
          tainted: false,
        });
        const attempts = await Promise.all(
          Array.from({ length: 25 }, () =>
            store.transitionAction('a1', ['proposed'], 'executing', {
              decidedBy: 'alice',
              decidedAt: '2026-01-01T00:00:02.000Z',
            }),
          ),
        );
        const winners = attempts.filter((entry) => entry !== null);
        expect(winners).toHaveLength(1);
        expect(winners[0]).toMatchObject({ status: 'executing', decidedBy: 'alice', changeSeq: 3 });
        const done = await store.transitionAction('a1', ['executing'], 'executed', { result: { ok: 1 } });
        expect(done).toMatchObject({
          status: 'executed',
          result: { ok: 1 },
          decidedBy: 'alice',
          changeSeq: 4,
        });
        expect(await store.transitionAction('a1', ['proposed'], 'rejected')).toBeNull();
        expect(await store.transitionAction('missing', ['proposed'], 'rejected')).toBeNull();
        expect((await store.appendMessage(message(room.id, 'm2'))).seq).toBe(5);
        expect((await store.listActions(room.id, { afterSeq: 3 })).map((entry) => entry.id)).toEqual(['a1']);
        expect(await store.listActions(room.id, { afterSeq: 4 })).toEqual([]);
        expect((await store.listActionsByStatus('executed')).map((entry) => entry.id)).toEqual(['a1']);
        expect(await store.getAction('a1')).toEqual(done);
        // A proposal made after reading web content keeps its mark.
        const tainted = await store.createAction({ ...action(room.id, 'a-web'), tainted: true });
        expect(tainted.tainted).toBe(true);
        expect((await store.getAction('a-web'))?.tainted).toBe(true);
      }),
    );

    it(
      'cancels pending actions of one room and deletes a direct room with everything in it',
      withStore(async (store) => {
        const unified = await store.ensureUnifiedRoom();
        const direct = await store.ensureDirectRoom({ id: 'c1', name: 'C' });
        await store.createAction(action(unified.id, 'u1'));
        await store.createAction(action(direct.id, 'd1'));
        await store.createAction(action(direct.id, 'd2'));
        await store.transitionAction('d2', ['proposed'], 'rejected', { reason: 'no' });
        const cancelled = await store.cancelPendingActions(direct.id, '2026-01-01T00:00:05.000Z');
        expect(cancelled.map((entry) => [entry.id, entry.status, entry.decidedAt])).toEqual([
          ['d1', 'cancelled', '2026-01-01T00:00:05.000Z'],
        ]);
        expect((await store.getAction('d2'))?.reason).toBe('no');
        expect((await store.getAction('u1'))?.status).toBe('proposed');
        await store.appendMessage(message(direct.id, 'dm'));
        await store.deleteDirectRoom('c1');
        expect(await store.getAction('d1')).toBeUndefined();
        expect(await store.getMessage('dm')).toBeUndefined();
        expect(await store.getAction('u1')).toBeDefined();
      }),
    );
  });
}
