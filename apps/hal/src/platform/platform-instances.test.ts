import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RoomEventEnvelope } from '@hal-ai/rooms';
import { afterEach, describe, expect, it } from 'vitest';
import { createHalRuntime, type HalRuntime } from '../hal-runtime.js';
import { loadConfig } from './config.js';
import { type OpenDatabase, openDatabase } from './db/database.js';
import { openPostgresDatabase } from './db/database-postgres.js';
import { createMigratedPostgresTestDatabase, describePostgres } from './db/database-postgres.test-support.js';
import { migrateToLatest } from './db/migrate.js';
import { createLogger } from './logger.js';
import { createInstanceRegistry } from './platform-instances.js';

/** Opens a new handle on ONE shared database each call, as separate HAL processes would. */
type SharedDatabase = () => Promise<OpenDatabase>;

const opened: HalRuntime[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const runtime of opened.splice(0)) await runtime.close(0);
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

async function startInstance(dataDir: string, database: OpenDatabase): Promise<HalRuntime> {
  const runtime = await createHalRuntime(loadConfig({ HAL_DATA_DIR: dataDir }), {
    database,
    logger: createLogger({ level: 'silent' }),
    env: {},
    remoteAgents: false,
    core: { pollMs: 50, metricsIntervalMs: 0 },
  });
  opened.push(runtime);
  await runtime.start();
  return runtime;
}

async function runningTurn(runtime: HalRuntime, id: string, instanceId?: string): Promise<void> {
  const room = await runtime.ai.store.ensureUnifiedRoom();
  const at = new Date().toISOString();
  await runtime.ai.store.createTurn({
    id,
    roomId: room.id,
    connectionId: 'c1',
    status: 'running',
    relayDepth: 0,
    relayedFrom: null,
    triggerMessageId: null,
    error: null,
    createdAt: at,
    updatedAt: at,
  });
  if (instanceId !== undefined) {
    await runtime.db.updateTable('ai_turns').set({ instance_id: instanceId }).where('id', '=', id).execute();
  }
}

async function turnStatus(runtime: HalRuntime, id: string): Promise<string | undefined> {
  return (await runtime.ai.store.getTurn(id))?.status;
}

function recoverySuite(shared: () => Promise<SharedDatabase>) {
  it("start-up interrupts only the turns of instances that stopped heartbeating, never a live one's", async () => {
    const open = await shared();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-instances-'));
    folders.push(dataDir);
    const a = await startInstance(dataDir, await open());
    // A turn A runs now, and one a crashed instance left behind (its last heartbeat long ago).
    await runningTurn(a, 'turn-of-a');
    await a.db
      .insertInto('hal_instances')
      .values({
        id: 'inst_crashed',
        kind: 'serve',
        host: 'h',
        pid: 1,
        version: '0',
        started_at: new Date(0).toISOString(),
        heartbeat_at: Date.now() - 60_000,
        stopped_at: null,
        jobs_json: null,
      })
      .execute();
    await runningTurn(a, 'turn-of-crashed', 'inst_crashed');

    const b = await startInstance(dataDir, await open());
    expect(await turnStatus(b, 'turn-of-a')).toBe('running');
    expect(await turnStatus(b, 'turn-of-crashed')).toBe('interrupted');

    // Both heartbeat: each is listed as serving, from either one, with its job runner.
    const serving = await b.instances.serving();
    expect(serving.map((instance) => instance.id).sort()).toEqual([a.instances.id, b.instances.id].sort());
    expect(serving.find((instance) => instance.self)?.id).toBe(b.instances.id);
    for (const instance of serving) expect(instance.jobs).toMatchObject({ status: 'running', running: 0 });

    // A dies without a word (as after SIGKILL): its heartbeat ages; the next instance interrupts its turn.
    await a.db
      .updateTable('hal_instances')
      .set({ heartbeat_at: 0 })
      .where('id', '=', a.instances.id)
      .execute();
    const c = await startInstance(dataDir, await open());
    expect(await turnStatus(c, 'turn-of-a')).toBe('interrupted');
    expect((await c.instances.serving()).map((instance) => instance.id)).not.toContain(a.instances.id);
  });
}

describePostgres('instances on one database', () => {
  recoverySuite(async () => {
    const { url } = await createMigratedPostgresTestDatabase();
    return async () => openPostgresDatabase(url);
  });

  it("one instance's room events reach the other's subscribers, whose cursors resume on either", async () => {
    const { url } = await createMigratedPostgresTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-instances-'));
    folders.push(dataDir);
    const a = await startInstance(dataDir, openPostgresDatabase(url));
    const b = await startInstance(dataDir, openPostgresDatabase(url));
    const room = await a.ai.store.ensureUnifiedRoom();
    const onB: RoomEventEnvelope[] = [];
    const follower = b.ai.events.subscribe(room.id, {}, (envelope) => onB.push(envelope));
    // What the engine publishes for a turn it runs (the two-process test posts through the engine itself).
    const delta = { type: 'delta', messageId: 'msg_1', connectionId: 'c1', text: '안녕하세요' } as const;
    a.ai.events.publish(room.id, delta);
    for (let attempt = 0; attempt < 300 && onB.length === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    follower.unsubscribe();
    expect(onB.map((envelope) => envelope.event)).toEqual([delta]);
    // A's cursor, read on B, replays nothing twice; B's own later event follows it.
    const cursor = a.ai.events.lastCursor?.(room.id) as string;
    expect(cursor).toMatch(/^[0-9a-z]{10}:\d+$/);
    b.ai.events.publish(room.id, { type: 'turn', turnId: 't_b', connectionId: 'c1', status: 'running' });
    const resumed: RoomEventEnvelope[] = [];
    expect(b.ai.events.subscribe(room.id, { cursor }, (envelope) => resumed.push(envelope)).replayed).toBe(
      true,
    );
    expect(resumed.map((envelope) => envelope.event.type)).toEqual(['turn']);
  });
});

describe('instances on one SQLite file (hal serve and hal mcp share it)', () => {
  recoverySuite(async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-instances-db-'));
    folders.push(folder);
    const file = path.join(folder, 'hal.db');
    return async () => {
      const database = openDatabase(file);
      await migrateToLatest(database.db);
      return database;
    };
  });
});

describe('an instance whose process is gone', () => {
  it('is not live on its own host as soon as its process is gone, whatever its last heartbeat says', async () => {
    const database = openDatabase(':memory:');
    await migrateToLatest(database.db);
    const gone = new Set<number>();
    const registry = (host: string, pid: number) =>
      createInstanceRegistry({
        db: database.db,
        clock: { now: () => Date.now() },
        kind: 'serve',
        version: 'test',
        host,
        pid,
        intervalMs: 60_000,
        isProcessAlive: (candidate) => !gone.has(candidate),
      });
    const here = registry('this-host', 1001);
    const killed = registry('this-host', 1002);
    const elsewhere = registry('other-host', 1002);
    for (const instance of [here, killed, elsewhere]) await instance.start();
    expect(await here.liveIds()).toEqual(new Set([here.id, killed.id, elsewhere.id]));
    // kill -9: the process is gone, its heartbeat is a moment old and it never said it stopped.
    gone.add(1002);
    expect(await here.liveIds()).toEqual(new Set([here.id, elsewhere.id]));
    expect((await here.serving()).map((instance) => instance.id).sort()).toEqual(
      [here.id, elsewhere.id].sort(),
    );
    for (const instance of [here, killed, elsewhere]) await instance.stop();
    await database.close();
  });
});
