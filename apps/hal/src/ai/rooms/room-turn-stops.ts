import type { RemoteTurns, TurnScope } from '@hal-ai/rooms';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { RoomSignal } from './postgres-room-signals.js';

/** What {@link createRoomTurnStops} sends and receives the requests through (the PostgreSQL room event hub). */
export interface RoomSignals {
  signal(signal: RoomSignal): Promise<void>;
  onSignal(listener: (signal: RoomSignal) => void): () => void;
}

/** Settings of {@link createRoomTurnStops}. */
export interface RoomTurnStopsSettings {
  db: Kysely<Database>;
  signals: RoomSignals;
  /** This process (`hal_instances.id`): its own turns the engine stops itself. */
  instanceId: string;
  /** The instances that still heartbeat: a dead one's turns are start-up recovery's, nobody waits for them. */
  liveIds(): Promise<ReadonlySet<string>>;
  logger: Pick<Logger, 'warn'>;
  /** How long `stop` waits for the other instances' turns to end (default 10 s). */
  waitMs?: number;
  /** How often it looks while waiting (default 50 ms). */
  pollMs?: number;
}

/** {@link RemoteTurns} across the instances on one database, and the receiving side of the same requests. */
export interface RoomTurnStops extends RemoteTurns {
  /** Asks the other instances to stop their turns in `scope` and returns at once (a connection was disabled). */
  ask(scope: TurnScope): Promise<void>;
  /** Calls `listener` when another instance asks this one to stop its turns in a scope; returns the unsubscribe. */
  onStopRequest(listener: (scope: TurnScope) => void): () => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Stopping turns another instance runs (SPEC §15): a `/reset` on B of a room whose turn runs on A, or a connection
 * disabled on B while A streams its answer. The engine of each instance aborts only its own turns; this sends the
 * others a `stop_turns` request (`postgres-room-signals.ts`), on which their engines abort theirs the same way — the
 * turn ends `cancelled`, its placeholder keeps its partial text with the error, no further delta goes out.
 *
 * `stop` (a reset) looks first whether a live instance other than this one runs a turn in the scope — no request
 * at all otherwise, so a lone instance pays one query — and then waits until those turns ended, since their last
 * writes must land before the history is cleared. An instance that does not answer within `waitMs` is logged and
 * the reset goes on.
 *
 * @example
 * const stops = createRoomTurnStops({ db, signals: roomEvents, instanceId, liveIds, logger });
 * stops.onStopRequest((scope) => scope.roomId ? engine.cancelTurnsIn(scope.roomId) : engine.cancelTurnsOf(scope.connectionId));
 */
export function createRoomTurnStops(settings: RoomTurnStopsSettings): RoomTurnStops {
  const { db, signals, instanceId } = settings;
  const pollMs = Math.max(5, settings.pollMs ?? 50);
  const attempts = Math.ceil((settings.waitMs ?? 10_000) / pollMs);

  /** Running turns in the scope that a live instance other than this one works on. */
  const runningElsewhere = async (scope: TurnScope, among?: readonly string[]) => {
    let query = db.selectFrom('ai_turns').select(['id', 'instance_id']).where('status', '=', 'running');
    query =
      scope.roomId !== undefined
        ? query.where('room_id', '=', scope.roomId)
        : query.where('connection_id', '=', scope.connectionId);
    if (among) query = query.where('id', 'in', among);
    const rows = await query.execute();
    const live = await settings.liveIds();
    return rows
      .filter(
        (row) => row.instance_id !== null && row.instance_id !== instanceId && live.has(row.instance_id),
      )
      .map((row) => row.id);
  };

  return {
    async stop(scope) {
      let waiting = await runningElsewhere(scope);
      if (waiting.length === 0) return;
      await signals.signal({ type: 'stop_turns', scope });
      for (let attempt = 0; attempt < attempts; attempt += 1) {
        await sleep(pollMs);
        // Only the turns asked to stop: one started meanwhile is not this request's to wait for.
        waiting = await runningElsewhere(scope, waiting);
        if (waiting.length === 0) return;
      }
      settings.logger.warn({ scope, turns: waiting }, 'turns of another instance did not stop in time');
    },
    ask: (scope) => signals.signal({ type: 'stop_turns', scope }),
    onStopRequest(listener) {
      return signals.onSignal((signal) => {
        if (signal.type === 'stop_turns') listener(signal.scope);
      });
    },
  };
}
