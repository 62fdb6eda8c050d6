import type { RoomEventHub } from '@hal-ai/rooms';

/**
 * A {@link RoomEventHub} shared by every process on one database: what one process publishes (its engine's events)
 * reaches its own subscribers at once, and what another process stores (`hal mcp` posting a proposal card, another
 * instance's turn) reaches them too (SPEC §15).
 *
 * Implementations:
 * - SQLite (`createSqliteRoomEventHub`): watches the rooms' counter (`last_seq`) while someone listens and publishes
 *   the rows another process stored (messages and action changes). Deltas and turn events are not stored, so they
 *   stay with the process that runs the turn — on SQLite only `hal serve` runs turns. Ids are this process's own
 *   increasing numbers, so `Last-Event-ID` resumes against this process's buffer.
 * - PostgreSQL (`createPostgresRoomEventHub`): over `LISTEN/NOTIFY`: `publish` also sends the event with this
 *   process's origin and its number in the room through `pg_notify`, and notifications of other origins are
 *   published to the local subscribers — deltas, turns, messages, actions and debates.
 *
 * **Event ids across instances (PostgreSQL).** Each instance receives the events in its own order, so the SSE id is
 * not a position but a vector (`RoomEventEnvelope.cursor`): for each origin, the highest number of its events in the
 * room the client has had, as `origin:n` pairs (`k3x9a00000:17,p0q2z00000:5`). Each origin's events reach every
 * instance in the same order, so `n` means "1…n". Any instance resumes a `Last-Event-ID` from any other exactly:
 * it replays from its buffer the events above the vector and skips, when they arrive, those the client had that it
 * had not yet received; when it cannot know (see `createSharedRoomEventBuffer`), `replayed` is false and the client
 * catches up through `messages?after=`. Lost notifications (the listening connection dropped) reach subscribers as
 * `onGap`. `lastCursor` gives the `resync` frame its id.
 */
export interface SharedRoomEventHub extends RoomEventHub {
  /** Stops following the other processes (timers, listening connections). Local publishing keeps working. */
  close(): Promise<void>;
}
