import type { RoomEventHub } from '@hal-ai/rooms';

/**
 * A {@link RoomEventHub} shared by every process on one database: what one process publishes (its engine's events)
 * reaches its own subscribers at once, and what another process stores (`hal mcp` posting a proposal card, another
 * instance's turn) reaches them too (SPEC §15). Subscribers see one stream per room with this process's own
 * increasing ids, so `Last-Event-ID` resumes against this process's buffer as before.
 *
 * Implementations:
 * - SQLite (`createSqliteRoomEventHub`): watches the rooms' counter (`last_seq`) while someone listens and publishes
 *   the rows another process stored (messages and action changes). Deltas and turn events are not stored, so they
 *   stay with the process that runs the turn — on SQLite only `hal serve` runs turns.
 * - PostgreSQL (planned, issue #20): the same interface over `LISTEN/NOTIFY`: `publish` also sends the event with this
 *   process's origin id through `pg_notify`, and notifications of other origins are published to the local
 *   subscribers — deltas included.
 */
export interface SharedRoomEventHub extends RoomEventHub {
  /** Stops following the other processes (timers, listening connections). Local publishing keeps working. */
  close(): Promise<void>;
}
