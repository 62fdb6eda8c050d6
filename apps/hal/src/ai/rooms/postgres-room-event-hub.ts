import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../platform/logger.js';
import { createRoomEventAssembler, encodeRoomEventNotifications } from './postgres-room-event-payload.js';
import {
  encodeRoomSignal,
  parseRoomSignal,
  ROOM_SIGNALS_CHANNEL,
  type RoomSignal,
} from './postgres-room-signals.js';
import { createSharedRoomEventBuffer } from './shared-room-event-buffer.js';
import type { SharedRoomEventHub } from './shared-room-event-hub.js';

/** The `LISTEN/NOTIFY` channel HAL's room events cross on (one per database). */
export const ROOM_EVENTS_CHANNEL = 'hal_room_events';

/** Settings of {@link createPostgresRoomEventHub}: a pool (HAL's own) or a connection string (a pool of its own). */
export type PostgresRoomEventHubSettings = (
  | { pool: pg.Pool; connectionString?: undefined }
  | { connectionString: string; pool?: undefined }
) & {
  /** This process among the instances (`hal_instances.id`); its origin in cursors is derived from it. */
  instanceId: string;
  logger?: Pick<Logger, 'warn' | 'error'>;
  /** Events kept per room for replay, this process's and the others' (default 500). */
  bufferSize?: number;
  /** First wait before listening again after the connection dropped (default 100 ms, doubling up to 5 s). */
  retryMs?: number;
  /** A listener threw (the others still get the event). */
  onListenerError?(error: unknown): void;
};

/** The PostgreSQL {@link SharedRoomEventHub}. */
export interface PostgresRoomEventHub extends SharedRoomEventHub {
  /** This process's origin in the cursors (10 of `0-9a-z`, derived from the instance id). */
  readonly origin: string;
  /** Resolves once the listening connection listens (the first time). */
  ready(): Promise<void>;
  /** Resolves once every event published so far was handed to PostgreSQL (or given up on). */
  flushed(): Promise<void>;
  /**
   * Sends a request to the other processes on the database, on a channel of its own (`ROOM_SIGNALS_CHANNEL`):
   * never to this process's own listeners, never to a panel. Rejects when PostgreSQL refused it.
   */
  signal(signal: RoomSignal): Promise<void>;
  /** Calls `listener` with every request another process sends; returns the unsubscribe. */
  onSignal(listener: (signal: RoomSignal) => void): () => void;
}

/** The short origin of an instance id in cursors: 10 base-36 digits of its SHA-256. */
export function roomEventOrigin(instanceId: string): string {
  const digest = createHash('sha256').update(instanceId).digest();
  return (digest.readBigUInt64BE(0) % 36n ** 10n).toString(36).padStart(10, '0');
}

const SEND_RETRIES_MS = [50, 250, 1000];
// One statement sends a batch: `unnest` yields the payloads in order, and PostgreSQL queues a transaction's
// notifications in the order they were made.
const SEND_SQL = `SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload`;
const MAX_BATCH = 500;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref?.();
  });

/**
 * Room events across the HAL instances on one PostgreSQL database (SPEC §15), over `LISTEN/NOTIFY`:
 * - `publish` delivers to this process's subscribers at once and queues the event for `pg_notify` with this process's
 *   origin and its number in the room; one send at a time, each a batch of what queued meanwhile, so one origin's
 *   events reach the others in order (a failed send is retried three times, then dropped: the receivers see the hole
 *   in the numbers and tell their subscribers to catch up);
 * - an event too large for one notification (8000 bytes) goes in pieces, put back together on the other side;
 * - one dedicated listening connection per process (a client of the pool, held): other origins' events are published
 *   to the local subscribers — messages, deltas, turns, actions, debates — and buffered for replay. When it drops, it
 *   listens again (backing off), and then tells every subscriber to catch up (`onGap`), since what was sent meanwhile
 *   is lost.
 * Cursors are vectors of origins' numbers, so a `Last-Event-ID` from one instance resumes on another
 * (`createSharedRoomEventBuffer`).
 *
 * @example
 * const events = createPostgresRoomEventHub({ pool: database.pool, instanceId: instances.id, logger });
 * await events.ready();
 */
export function createPostgresRoomEventHub(settings: PostgresRoomEventHubSettings): PostgresRoomEventHub {
  const ownPool = settings.pool === undefined;
  const pool =
    settings.pool ?? new pg.Pool({ connectionString: settings.connectionString as string, max: 2 });
  if (ownPool) pool.on('error', () => {});
  const { logger } = settings;
  const origin = roomEventOrigin(settings.instanceId);
  const buffer = createSharedRoomEventBuffer({
    origin,
    ...(settings.bufferSize !== undefined ? { bufferSize: settings.bufferSize } : {}),
    onListenerError: (error) => {
      if (settings.onListenerError) settings.onListenerError(error);
      else logger?.warn({ err: error }, 'room event listener failed');
    },
  });
  const assembler = createRoomEventAssembler();
  const retryMs = Math.max(10, settings.retryMs ?? 100);
  let closed = false;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });

  // Sending: one batch in flight at a time.
  const queue: string[] = [];
  let sending: Promise<void> | undefined;
  const send = async (batch: string[]) => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await pool.query(SEND_SQL, [ROOM_EVENTS_CHANNEL, batch]);
        return;
      } catch (error) {
        const wait = SEND_RETRIES_MS[attempt];
        if (wait === undefined || closed) {
          logger?.error(
            { err: error, events: batch.length },
            'room events could not be sent to other instances',
          );
          return;
        }
        await sleep(wait);
      }
    }
  };
  const drain = async () => {
    while (queue.length > 0) await send(queue.splice(0, MAX_BATCH));
  };
  const kick = () => {
    sending ??= drain().finally(() => {
      sending = undefined;
      if (queue.length > 0) kick();
    });
  };

  // Listening: one held client, listened again when it drops.
  let client: pg.PoolClient | undefined;
  let markReady: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  let wake: (() => void) | undefined;
  const signalListeners = new Set<(signal: RoomSignal) => void>();
  const onSignal = (payload: string) => {
    const parsed = parseRoomSignal(payload);
    if (!parsed) return logger?.warn('a room signal notification was not understood');
    if (parsed.origin === origin) return;
    for (const listener of signalListeners) {
      try {
        listener(parsed.signal);
      } catch (error) {
        logger?.warn({ err: error }, 'room signal listener failed');
      }
    }
  };
  const onNotification = (message: pg.Notification) => {
    if (message.channel === ROOM_SIGNALS_CHANNEL && message.payload !== undefined)
      return onSignal(message.payload);
    if (message.channel !== ROOM_EVENTS_CHANNEL || message.payload === undefined) return;
    try {
      const crossing = assembler.accept(message.payload);
      if (crossing && crossing.origin !== origin) {
        buffer.receive(crossing.roomId, crossing.origin, crossing.seq, crossing.event);
      }
    } catch (error) {
      logger?.warn({ err: error }, 'a room event notification was not understood');
    }
  };
  const listenLoop = async () => {
    let wait = retryMs;
    let listenedBefore = false;
    while (!closed) {
      let connection: pg.PoolClient | undefined;
      try {
        connection = await pool.connect();
        const dropped = new Promise<void>((resolve) => {
          wake = resolve;
          connection?.on('error', (error) => {
            if (!closed) logger?.warn({ err: error }, 'the room events connection dropped; listening again');
            resolve();
          });
          connection?.on('end', () => resolve());
        });
        connection.on('notification', onNotification);
        client = connection;
        // Signals first: the events' LISTEN stays the connection's last statement (how operators spot it).
        await connection.query(`LISTEN ${ROOM_SIGNALS_CHANNEL}`);
        await connection.query(`LISTEN ${ROOM_EVENTS_CHANNEL}`);
        if (closed) break;
        if (listenedBefore) {
          // What was sent while nobody listened is gone: every subscriber catches up.
          assembler.reset();
          buffer.lost();
        }
        listenedBefore = true;
        wait = retryMs;
        markReady();
        await dropped;
      } catch (error) {
        if (!closed) logger?.warn({ err: error }, 'listening for room events failed; trying again');
      } finally {
        client = undefined;
        wake = undefined;
        connection?.removeListener('notification', onNotification);
        // A dropped (or listening) connection is not reused by the pool.
        connection?.release(true);
      }
      if (closed) break;
      await Promise.race([sleep(wait), stopped]);
      wait = Math.min(wait * 2, 5000);
    }
  };
  const listening = listenLoop();

  return {
    origin,
    publish(roomId, event) {
      const { envelope, seq } = buffer.publishOwn(roomId, event);
      if (!closed) {
        queue.push(...encodeRoomEventNotifications({ roomId, origin, seq, event }));
        kick();
      }
      return envelope;
    },
    subscribe: (roomId, options, listener) => buffer.subscribe(roomId, options, listener),
    resumeFrom: (roomId, afterId) => buffer.resumeFrom(roomId, afterId),
    lastId: (roomId) => buffer.lastId(roomId),
    lastCursor: (roomId) => buffer.lastCursor?.(roomId),
    ready: () => readyPromise,
    async signal(signal) {
      await pool.query('SELECT pg_notify($1, $2)', [ROOM_SIGNALS_CHANNEL, encodeRoomSignal(origin, signal)]);
    },
    onSignal(listener) {
      signalListeners.add(listener);
      return () => signalListeners.delete(listener);
    },
    async flushed() {
      while (sending) await sending;
    },
    async close() {
      if (closed) return;
      // What is queued still goes out; then the listening connection ends.
      while (sending) await sending;
      closed = true;
      stop();
      wake?.();
      client?.removeListener('notification', onNotification);
      await listening;
      if (ownPool) await pool.end();
    },
  };
}
