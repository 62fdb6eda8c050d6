import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';

/** Default time between two heartbeats of one process. */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** An instance whose last heartbeat is older than this is taken as stopped (three missed heartbeats). */
export const HEARTBEAT_STALE_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS;

/** The job runner as an instance reports it with its heartbeat. */
export interface InstanceJobsReport {
  status: 'running' | 'stopped';
  running: number;
  concurrency: number;
}

/** One HAL process on the database, as health reports describe it. */
export interface InstanceSummary {
  id: string;
  kind: 'serve' | 'mcp';
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  /** When it last heartbeat (ISO). */
  heartbeatAt: string;
  /** Whether this is the process answering. */
  self: boolean;
  jobs: InstanceJobsReport | null;
}

/** Settings of {@link createInstanceRegistry}. */
export interface InstanceRegistrySettings {
  db: Kysely<Database>;
  clock: { now(): number };
  kind: 'serve' | 'mcp';
  version: string;
  /** This process's id (default `inst_<uuid>`). */
  id?: string;
  intervalMs?: number;
  staleAfterMs?: number;
  /** What this process's job runner is doing, sent with every heartbeat (`hal mcp` runs none). */
  jobs?: () => Promise<InstanceJobsReport> | InstanceJobsReport;
  host?: string;
  pid?: number;
  /**
   * Whether a process of this machine still runs (default: `process.kill(pid, 0)` — no signal is sent). An
   * instance of this host whose process is gone is stopped at once, without waiting for its heartbeat to age: a
   * `kill -9` or a crash followed by a quick restart must not leave the dead process's turns and jobs running.
   */
  isProcessAlive?: (pid: number) => boolean;
  /** A failed heartbeat (the next one tries again). */
  onError?(error: unknown): void;
}

/**
 * This process's entry among the HAL processes sharing one database (SPEC §15): `start()` registers it and
 * heartbeats every `intervalMs`; `stop()` marks it stopped. Another process's start-up asks {@link liveIds} which
 * instances still heartbeat, and interrupts only the work of the others; health reads {@link serving}.
 *
 * @example
 * const instances = createInstanceRegistry({ db, clock, kind: 'serve', version: HAL_VERSION });
 * await instances.start();
 */
/** The real check: signal 0 tests for a process without touching it; `EPERM` means it runs as another user. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createInstanceRegistry(settings: InstanceRegistrySettings) {
  const { db, clock } = settings;
  const id = settings.id ?? `inst_${randomUUID()}`;
  const host = settings.host ?? os.hostname();
  const isProcessAlive = settings.isProcessAlive ?? processAlive;
  /** Heartbeating and, when it is of this host, its process still there. */
  const alive = (row: { id: string; host: string; pid: number }) =>
    row.id === id || row.host !== host || isProcessAlive(row.pid);
  const intervalMs = settings.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const staleAfterMs = settings.staleAfterMs ?? HEARTBEAT_STALE_AFTER_MS;
  let timer: ReturnType<typeof setInterval> | undefined;
  let beating: Promise<void> | undefined;

  const jobsJson = async () => (settings.jobs ? JSON.stringify(await settings.jobs()) : null);
  const beat = async () => {
    const jobs = await jobsJson();
    await db
      .updateTable('hal_instances')
      .set({ heartbeat_at: clock.now(), jobs_json: jobs })
      .where('id', '=', id)
      .execute();
  };

  return {
    /** This process's instance id (what its turns, messages, actions and jobs name). */
    id,
    /** Registers this process and starts heartbeating. */
    async start(): Promise<void> {
      const now = clock.now();
      const jobs = await jobsJson();
      await db
        .insertInto('hal_instances')
        .values({
          id,
          kind: settings.kind,
          host,
          pid: settings.pid ?? process.pid,
          version: settings.version,
          started_at: new Date(now).toISOString(),
          heartbeat_at: now,
          stopped_at: null,
          jobs_json: jobs,
        })
        .execute();
      timer = setInterval(() => {
        if (beating) return;
        beating = beat()
          .catch((error: unknown) => settings.onError?.(error))
          .finally(() => {
            beating = undefined;
          });
      }, intervalMs);
      timer.unref?.();
    },
    /** Sends one heartbeat now (tests; the timer sends the others). */
    beat,
    /** Ids of the instances that still heartbeat (this one included), never stopped. */
    async liveIds(): Promise<Set<string>> {
      const rows = await db
        .selectFrom('hal_instances')
        .select(['id', 'host', 'pid'])
        .where('stopped_at', 'is', null)
        .where('heartbeat_at', '>=', clock.now() - staleAfterMs)
        .execute();
      return new Set([id, ...rows.filter(alive).map((row) => row.id)]);
    },
    /** The instances that still heartbeat, oldest first (health). */
    async serving(): Promise<InstanceSummary[]> {
      const rows = await db
        .selectFrom('hal_instances')
        .selectAll()
        .where('stopped_at', 'is', null)
        .where('heartbeat_at', '>=', clock.now() - staleAfterMs)
        .orderBy('started_at')
        .execute();
      return rows.filter(alive).map((row) => ({
        id: row.id,
        kind: row.kind,
        host: row.host,
        pid: row.pid,
        version: row.version,
        startedAt: row.started_at,
        heartbeatAt: new Date(row.heartbeat_at).toISOString(),
        self: row.id === id,
        jobs: row.jobs_json === null ? null : (JSON.parse(row.jobs_json) as InstanceJobsReport),
      }));
    },
    /** Stops heartbeating and marks this instance stopped (its leftovers are then anyone's to interrupt). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await beating;
      await db
        .updateTable('hal_instances')
        .set({ stopped_at: new Date(clock.now()).toISOString() })
        .where('id', '=', id)
        .execute();
    },
  };
}

/** This process's entry among the instances (see {@link createInstanceRegistry}). */
export type InstanceRegistry = ReturnType<typeof createInstanceRegistry>;

/**
 * What start-up recovery must leave alone: the running turns, streaming messages and executing actions owned by an
 * instance in `live` (read once, so the predicate `recoverInterrupted({ keep })` takes is synchronous).
 */
export async function liveRoomWork(
  db: Kysely<Database>,
  live: ReadonlySet<string>,
): Promise<(record: { kind: 'turn' | 'message' | 'action'; id: string }) => boolean> {
  const owners = [...live];
  if (owners.length === 0) return () => false;
  const [turns, messages, actions] = await Promise.all([
    db
      .selectFrom('ai_turns')
      .select('id')
      .where('status', '=', 'running')
      .where('instance_id', 'in', owners)
      .execute(),
    db
      .selectFrom('ai_messages')
      .select('id')
      .where('status', '=', 'streaming')
      .where('instance_id', 'in', owners)
      .execute(),
    db
      .selectFrom('ai_actions')
      .select('id')
      .where('status', '=', 'executing')
      .where('instance_id', 'in', owners)
      .execute(),
  ]);
  const kept = {
    turn: new Set(turns.map((row) => row.id)),
    message: new Set(messages.map((row) => row.id)),
    action: new Set(actions.map((row) => row.id)),
  };
  return (record) => kept[record.kind].has(record.id);
}
