// The PostgreSQL part of the rooms benchmark (issue #20): a fresh database for the `postgres` host, and the
// cross-instance delta latency — instance A runs the turn, a panel on instance B (same database, same data folder)
// receives its deltas over LISTEN/NOTIFY. Used by run.mjs when BENCH_DATABASE_URL names a PostgreSQL server.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { forEachSseFrame, parseSseFrame } from './sse-frames.mjs';

/**
 * A throw-away PostgreSQL server for this run, started the way the PostgreSQL test suites start theirs
 * (`scripts/test-postgres.sh start`: a temp folder, a free loopback port, a generated password). Resolves with its
 * URL and a synchronous `stop()` (safe to call twice, and from an `exit` handler), or with `skipped` naming why
 * there is none (PostgreSQL not installed, or the server did not start).
 *
 * @param {string} repositoryRoot
 * @returns {{ url: string, stop(): void } | { skipped: string }}
 */
export function startBenchPostgresServer(repositoryRoot) {
  const script = join(repositoryRoot, 'scripts', 'test-postgres.sh');
  const started = spawnSync('bash', [script, 'start'], { encoding: 'utf8' });
  const url = /HAL_TEST_DATABASE_URL='([^']+)'/.exec(started.stdout ?? '')?.[1];
  const dir = /HAL_TEST_PG_DIR='([^']+)'/.exec(started.stdout ?? '')?.[1];
  if (started.status !== 0 || !url || !dir) {
    if (dir) spawnSync('bash', [script, 'stop', dir]);
    const why =
      (started.stderr ?? '').trim().split('\n').at(-1) || `exit ${started.status ?? started.signal}`;
    return { skipped: why };
  }
  let stopped = false;
  return {
    url,
    stop() {
      if (stopped) return;
      stopped = true;
      spawnSync('bash', [script, 'stop', dir]);
    },
  };
}

/**
 * Creates an empty database on the server of `serverUrl` for one run; resolves with its URL and a `drop()`.
 * The bench's `hal serve` migrates it like a new install, so every run starts from the same state.
 */
export async function createBenchDatabase(serverUrl) {
  const name = `hal_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * Posts `rounds` messages on A and records, on one stream held on A and one on B for the same room, when each
 * `delta` frame of the turn arrives. Pairs the n-th delta on both (each origin's events arrive in order) and
 * resolves with B − A for the first delta of every turn and for every delta.
 *
 * @param {object} settings
 * @param {(path: string) => Promise<{ body: AsyncIterable<Uint8Array>, abort(): void }>} settings.openA
 * @param {(path: string) => Promise<{ body: AsyncIterable<Uint8Array>, abort(): void }>} settings.openB
 * @param {(text: string) => Promise<unknown>} settings.post posts one operator message on A
 * @param {string} settings.roomId
 * @param {string} settings.connectionId
 * @param {number} settings.rounds
 * @param {() => number} settings.now
 */
export async function measureCrossInstance(settings) {
  const { roomId, connectionId, now } = settings;
  let turn = null;
  const follow = async (open, side) => {
    const stream = await open(`/ops/api/ai/rooms/${roomId}/events`);
    const reading = forEachSseFrame(stream.body, (frame) => onFrame(side, frame)).catch(() => {
      // Aborted at the end of the phase.
    });
    return { stream, reading };
  };
  const onFrame = (side, frame) => {
    if (!turn) return;
    const { event, data } = parseSseFrame(frame);
    if (data === '' || (event !== 'delta' && event !== 'turn')) return;
    const at = now();
    const payload = JSON.parse(data);
    if (payload.connectionId !== connectionId) return;
    if (event === 'delta') turn[side].push(at);
    else if (payload.status !== 'running') turn.ended[side]();
  };

  const a = await follow(settings.openA, 'a');
  const b = await follow(settings.openB, 'b');
  const first = [];
  const every = [];
  let unpaired = 0;
  try {
    for (let index = 0; index < settings.rounds; index += 1) {
      const ended = {};
      const done = Promise.all(
        ['a', 'b'].map(
          (side) =>
            new Promise((resolve, reject) => {
              ended[side] = resolve;
              setTimeout(
                () => reject(new Error(`cross-instance turn ${index}: no end on ${side}`)),
                30_000,
              ).unref();
            }),
        ),
      );
      turn = { a: [], b: [], ended };
      await settings.post(`Round ${index}: which servers need attention?`);
      await done;
      const pairs = Math.min(turn.a.length, turn.b.length);
      unpaired += Math.abs(turn.a.length - turn.b.length);
      if (pairs > 0) first.push(turn.b[0] - turn.a[0]);
      for (let n = 0; n < pairs; n += 1) every.push(turn.b[n] - turn.a[n]);
      turn = null;
    }
  } finally {
    a.stream.abort();
    b.stream.abort();
    await Promise.allSettled([a.reading, b.reading]);
  }
  return { first, every, unpaired };
}
