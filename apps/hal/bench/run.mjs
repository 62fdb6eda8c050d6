// Benchmark of issue #7: the time from posting a message to the first `delta` frame on the room's SSE stream,
// against the fake provider's own time to first token called directly in the same run (raw undici, and
// @hal-ai/providers' adapter), at 1 and 64 turns in flight, and fan-out of one unified message to 5 models.
// Runs the BUILT host (`dist/cli.js serve`) as a child process with a temporary data folder; the fake provider
// runs in a second child. Writes bench-results/rooms.json. Not a test: the numbers depend on the machine.
//
// Environment: BENCH_CPU_PROF=1 profiles HAL (`--cpu-prof`, into bench-results/profiles/);
// BENCH_ROUNDS_SCALE=0.5 runs fewer rounds (quick look); BENCH_DATA_DIR_BASE=/dev/shm (database on tmpfs);
// BENCH_OUTPUT=<file name> writes bench-results/<file name> instead of rooms.json; BENCH_HAL_NODE_ARGS='--flag …' adds
// Node options to `hal serve` (e.g. V8 flags, or `--require` of a tracing hook); BENCH_VARIANTS='a:ENV=1;b:ENV=0'
// runs one `hal serve` per variant (name: environment additions, comma-separated) taking turns in every round;
// PostgreSQL: a `sqlite` and a `postgres` host side by side, then the cross-instance delta latency on PostgreSQL
// (postgres-bench.mjs), on a throw-away server the run starts when the PostgreSQL binaries are installed, or on
// BENCH_DATABASE_URL=postgres://… (a server the bench may create databases on); BENCH_POSTGRES=0 skips it. In
// BENCH_VARIANTS, `HAL_DATABASE_URL=postgres` gives a variant a fresh database of its own on that server.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProvider } from '@hal-ai/providers';
import { createBenchDatabase, measureCrossInstance, startBenchPostgresServer } from './postgres-bench.mjs';
import { forEachSseFrame, parseSseFrame } from './sse-frames.mjs';

// The undici the adapter itself uses (apps/hal does not depend on undici directly).
const { Agent, request } = createRequire(
  fileURLToPath(import.meta.resolve('@hal-ai/providers/package.json')),
)('undici');

const here = dirname(fileURLToPath(import.meta.url));
const appDir = join(here, '..');
const resultsDir = join(appDir, 'bench-results');
const FIRST_TOKEN_MS = 300;
const FAN_OUT = 5;
const CONCURRENT = 64;
const scale = Number(process.env.BENCH_ROUNDS_SCALE ?? 1);
const ROUNDS = {
  single: Math.max(3, Math.round(20 * scale)),
  fanOut: Math.max(3, Math.round(10 * scale)),
  concurrent: Math.max(2, Math.round(4 * scale)),
};
const TARGETS = { singleAddedMs: 5, concurrentMedianRatio: 1.1, concurrentP99Ratio: 1.5, fanOutAddedMs: 10 };
const TURN_TIMEOUT_MS = 30_000;
// One clock for this process and the fake's: time origin + monotonic time, in ms.
const now = () => performance.timeOrigin + performance.now();
const started = now();
const loadAtStart = round(loadavg()[0]);
const cpus = availableParallelism();
const log = (text) => console.log(`[${((now() - started) / 1000).toFixed(1)} s] ${text}`);
let tagCounter = 0;
const tagPrefix = randomBytes(3).toString('hex');
const newTag = () => {
  tagCounter += 1;
  return `${tagPrefix}${tagCounter.toString(36)}`;
};

warnIfStale();

const keys = {
  hal: randomBytes(24).toString('base64url'),
  direct: randomBytes(24).toString('base64url'),
  floor: randomBytes(24).toString('base64url'),
};
// BENCH_DATA_DIR_BASE=/dev/shm puts HAL's database on tmpfs: commits then cost no fsync (an experiment, not a setup).
const dataDir = mkdtempSync(join(process.env.BENCH_DATA_DIR_BASE ?? tmpdir(), 'hal-bench-'));
const children = [];
// Own pools: the SSE streams hold 70 sockets open, and 64 posts go out at once.
const halAgent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });
const directAgent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });
const floorAgent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });

/** A child process that reports on IPC (`fake-provider.mjs`) or prints lines on stdout (`hal serve`). */
function startChild(args, env) {
  const child = spawn(process.execPath, args, {
    cwd: appDir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (data) => {
    stderr = (stderr + data).slice(-4000);
  });
  child.once('exit', (code, signal) => {
    if (!closing) {
      console.error(`child ${args.at(-1)} exited early (${code ?? signal}):\n${stderr}`);
      process.exitCode = 1;
    }
  });
  return child;
}

let closing = false;
/** Stops the children (SIGTERM, then SIGKILL after a grace period); resolves with how long each took, in ms. */
async function stopChildren() {
  closing = true;
  return Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve(0);
          const signalledAt = now();
          // A CPU profile is written on exit, which takes a while.
          const grace = setTimeout(() => child.kill('SIGKILL'), profiling ? 90_000 : 20_000);
          child.once('exit', (_code, signal) => {
            clearTimeout(grace);
            resolve(signal === 'SIGKILL' ? null : round(now() - signalledAt));
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    medianMs: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    minMs: round(sorted[0]),
    maxMs: round(sorted.at(-1)),
  };
}

function round(value, digits = 2) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Warns when a workspace library's dist is older than its sources: the bench runs the built code. */
function warnIfStale() {
  const newest = (dir, filter) => {
    let latest = 0;
    if (!existsSync(dir)) return latest;
    for (const entry of readdirSync(dir, { recursive: true })) {
      const file = join(dir, String(entry));
      if (!filter(file)) continue;
      const stats = statSync(file);
      if (stats.isFile()) latest = Math.max(latest, stats.mtimeMs);
    }
    return latest;
  };
  if (!existsSync(join(appDir, 'dist', 'cli.js')))
    throw new Error('dist/cli.js is missing: run `pnpm bench`');
  for (const name of ['spec', 'providers', 'rooms', 'tools', 'vault']) {
    const packageDir = join(appDir, '..', '..', 'packages', name);
    const sources = newest(
      join(packageDir, 'src'),
      (file) => file.endsWith('.ts') && !file.includes('.test'),
    );
    const built = newest(join(packageDir, 'dist'), (file) => file.endsWith('.js'));
    if (built < sources) {
      console.warn(
        `warning: packages/${name}/dist is older than its sources; \`pnpm bench\` from the root builds it first`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The fake provider and HAL.

const fake = startChild([join(here, 'fake-provider.mjs')], {
  BENCH_HAL_KEY: keys.hal,
  BENCH_DIRECT_KEY: keys.direct,
  BENCH_FLOOR_KEY: keys.floor,
  BENCH_FIRST_TOKEN_MS: String(FIRST_TOKEN_MS),
});
const { baseUrl } = await new Promise((resolve, reject) => {
  fake.once('message', resolve);
  fake.once('exit', () => reject(new Error('the fake provider did not start')));
});
// The floor: a pass-through host in its own process (see floor-proxy.mjs).
const floor = startChild([join(here, 'floor-proxy.mjs')], {
  BENCH_BASE_URL: baseUrl,
  BENCH_FLOOR_KEY: keys.floor,
});
const { url: floorUrl } = await new Promise((resolve, reject) => {
  floor.once('message', resolve);
  floor.once('exit', () => reject(new Error('the floor proxy did not start')));
});

/** Asks the fake for `stats` (request body sizes) or `arrivals` (tag → when the request was in; then cleared). */
const askFake = (what) =>
  new Promise((resolve) => {
    const onMessage = (message) => {
      if (message.type !== what) return;
      fake.off('message', onMessage);
      resolve(what === 'stats' ? message.bodyBytes : message.arrivals);
    };
    fake.on('message', onMessage);
    fake.send(what);
  });

const profileDir = join(resultsDir, 'profiles');
const profiling = process.env.BENCH_CPU_PROF === '1';
if (profiling) mkdirSync(profileDir, { recursive: true });
/**
 * The hosts under test: one `hal serve` per variant of BENCH_VARIANTS (`name:KEY=value,KEY=value;name:…`), each
 * with its own data folder; by default one host named `hal`. Every round runs each of them in turn.
 */
function parseVariants(text) {
  if (!text?.trim()) return [{ name: 'hal', env: {} }];
  return text
    .split(';')
    .filter((entry) => entry.trim())
    .map((entry) => {
      // Only the first `:` ends the name: a value may hold more (a database URL).
      const colon = entry.indexOf(':');
      const name = colon === -1 ? entry : entry.slice(0, colon);
      const assignments = colon === -1 ? '' : entry.slice(colon + 1);
      const env = Object.fromEntries(
        assignments
          .split(',')
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1)]),
      );
      return { name: name.trim(), env };
    });
}

async function startHal(variant, index, { expectPassword = true } = {}) {
  const child = startChild(
    [
      ...(profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(process.env.BENCH_HAL_NODE_ARGS ?? '').split(' ').filter(Boolean),
      join(appDir, 'dist', 'cli.js'),
      'serve',
    ],
    {
      HAL_DATA_DIR: join(dataDir, `hal-${index}`),
      HAL_PORT: '0',
      HAL_HOST: '127.0.0.1',
      HAL_LOG_LEVEL: process.env.HAL_LOG_LEVEL ?? 'info',
      ...variant.env,
    },
  );
  const { url, password } = await new Promise((resolve, reject) => {
    let buffer = '';
    let secret;
    child.stdout.on('data', (data) => {
      buffer += data;
      secret ??= /^password: (\S+)$/m.exec(buffer)?.[1];
      const listening = /^HAL listening on (\S+)$/m.exec(buffer)?.[1];
      if (listening && (secret || !expectPassword)) resolve({ url: listening, password: secret });
    });
    child.once('exit', () => reject(new Error(`hal serve (${variant.name}) did not start`)));
  });
  return {
    name: variant.name,
    env: variant.env,
    child,
    url,
    password,
    cookie: '',
    csrfToken: '',
    connections: [],
    idleCpuMsPerS: 0,
  };
}
// PostgreSQL (issue #20): BENCH_DATABASE_URL names a server; else, unless BENCH_POSTGRES=0, a throw-away one is
// started for the run when the PostgreSQL binaries are installed, and stopped at the end. Without one the run
// measures SQLite only, and says so.
const postgresServer = process.env.BENCH_DATABASE_URL
  ? { url: process.env.BENCH_DATABASE_URL, stop() {} }
  : process.env.BENCH_POSTGRES === '0'
    ? { skipped: 'BENCH_POSTGRES=0' }
    : startBenchPostgresServer(join(appDir, '..', '..'));
process.on('exit', () => postgresServer.stop?.());
if (postgresServer.skipped) log(`PostgreSQL: skipped (${postgresServer.skipped}); SQLite only`);
else if (!process.env.BENCH_DATABASE_URL) log('PostgreSQL: a throw-away server for this run');
/**
 * A variant's `HAL_DATABASE_URL=postgres` stands for a fresh database of its own on the run's PostgreSQL server;
 * by default the run has a `sqlite` and a `postgres` host (SQLite only when there is no server).
 */
const variantsText =
  process.env.BENCH_VARIANTS ??
  (postgresServer.url
    ? 'sqlite:HAL_LOG_LEVEL=warn;postgres:HAL_LOG_LEVEL=warn,HAL_DATABASE_URL=postgres'
    : '');
const benchDatabases = [];
const hosts = [];
for (const [index, variant] of parseVariants(variantsText).entries()) {
  if (variant.env.HAL_DATABASE_URL === 'postgres') {
    if (!postgresServer.url)
      throw new Error(`variant ${variant.name} needs PostgreSQL: ${postgresServer.skipped}`);
    const database = await createBenchDatabase(postgresServer.url);
    benchDatabases.push(database);
    variant.env.HAL_DATABASE_URL = database.url;
  }
  mkdirSync(join(dataDir, `hal-${index}`));
  hosts.push(await startHal(variant, index));
}

/**
 * CPU time (user + system, ms) HAL's process has used, from /proc (Linux; undefined elsewhere). Unlike latency it
 * does not grow when other processes crowd the machine, so it says what a turn costs HAL.
 */
function halCpuMs(host) {
  try {
    const fields = readFileSync(`/proc/${host.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** A host's CPU so far, and when (`eachHost` subtracts what the host spends idle, `host.idleCpuMsPerS`). */
const cpuMark = (host) => ({ cpu: halCpuMs(host), at: now() });

// ---------------------------------------------------------------------------------------------------------------
// A logged-in operator over real HTTP.

async function halCall(host, method, path, json) {
  const response = await request(`${host.url}${path}`, {
    method,
    dispatcher: halAgent,
    headers: {
      ...(host.cookie ? { cookie: host.cookie, 'x-csrf-token': host.csrfToken } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.body.text();
  const body = text ? JSON.parse(text) : null;
  if (response.statusCode >= 300) {
    throw new Error(`${method} ${path} → ${response.statusCode} ${text.slice(0, 300)}`);
  }
  return { body, headers: response.headers };
}

for (const host of hosts) {
  log(
    `HAL ${host.name} at ${host.url}${Object.keys(host.env).length > 0 ? ` (${JSON.stringify(host.env).replace(/\/\/[^@"]*@/g, '//…@')})` : ''}`,
  );
  const { body, headers } = await halCall(host, 'POST', '/ops/login', {
    username: 'admin',
    password: host.password,
  });
  const setCookie = [headers['set-cookie']].flat().filter(Boolean);
  host.cookie = setCookie.map((line) => String(line).split(';')[0]).join('; ');
  host.csrfToken = body.csrfToken;
}
log(`fake provider at ${baseUrl}`);

/** Adds connections `m01…` up to `count` to a host; resolves with its rooms. */
async function addConnections(host, count) {
  const { connections } = host;
  for (let index = connections.length + 1; connections.length < count; index += 1) {
    const name = `m${String(index).padStart(2, '0')}`;
    const { body } = await halCall(host, 'POST', '/ops/api/ai/connections', {
      provider: 'openai',
      name,
      auth: 'api_key',
      apiKey: keys.hal,
      baseUrl,
      model: 'bench-model',
      identity: { role: `${name}: reviewer`, traits: 'brief', instructions: 'Answer in one paragraph.' },
      tools: { preset: 'all' },
    });
    if (body.connection.status !== 'active') throw new Error(`connection ${name}: ${JSON.stringify(body)}`);
    connections.push(body.connection);
  }
  const { body } = await halCall(host, 'GET', '/ops/api/ai/rooms');
  host.rooms = body.rooms;
  return body.rooms;
}

// ---------------------------------------------------------------------------------------------------------------
// SSE: one stream per room, frames parsed by hand. A waiter per (room, connection) takes the first `delta` and the
// end of the turn; at most one turn per (room, connection) runs at a time, so the first delta after the post is
// this turn's.

const waiters = new Map();
const streams = [];

function handleFrame(roomId, frame) {
  const { event, data } = parseSseFrame(frame);
  // Comments (heartbeats) have no data; `action` and `resync` frames play no part here.
  if (data === '' || (event !== 'delta' && event !== 'turn' && event !== 'message')) return;
  const at = now();
  const payload = JSON.parse(data);
  const connectionId = payload.connectionId ?? payload.message?.connectionId;
  const waiter = waiters.get(`${roomId}|${connectionId}`);
  if (!waiter) return;
  if (event === 'delta') {
    waiter.firstDeltaAt ??= at;
  } else if (event === 'message') {
    // The engine stores the streaming placeholder right before it calls the model.
    if (payload.message.status === 'streaming') waiter.placeholderAt ??= at;
    if (payload.message.error) waiter.error = payload.message.error;
  } else if (event === 'turn') {
    if (payload.status === 'running') waiter.runningAt ??= at;
    else waiter.finish(payload.status);
  }
}

async function openStream(host, roomId) {
  const controller = new AbortController();
  const response = await request(`${host.url}/ops/api/ai/rooms/${roomId}/events`, {
    method: 'GET',
    dispatcher: halAgent,
    headers: { cookie: host.cookie, accept: 'text/event-stream' },
    signal: controller.signal,
    // A stream may stay quiet for minutes while other hosts are set up: it ends when the run aborts it.
    bodyTimeout: 0,
  });
  if (response.statusCode !== 200) throw new Error(`events of ${roomId}: ${response.statusCode}`);
  readFrames(response, controller, (frame) => handleFrame(roomId, frame));
}

/** Reads an SSE body frame by frame (split by hand) until it ends or `controller` aborts it. */
function readFrames(response, controller, onFrame) {
  const reading = forEachSseFrame(response.body, onFrame).catch((error) => {
    if (!controller.signal.aborted) throw error;
  });
  streams.push({ controller, reading });
}

/** Registers the waiter before the post; resolves with post → first delta (ms) once the turn has ended. */
function expectTurn(roomId, connectionId, postedAt) {
  const key = `${roomId}|${connectionId}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiters.delete(key);
      reject(new Error(`turn of ${connectionId} in ${roomId} did not finish in ${TURN_TIMEOUT_MS} ms`));
    }, TURN_TIMEOUT_MS);
    const waiter = {
      firstDeltaAt: undefined,
      error: undefined,
      finish(status) {
        clearTimeout(timer);
        waiters.delete(key);
        if (status !== 'complete' || waiter.firstDeltaAt === undefined) {
          reject(new Error(`turn ${status}: ${JSON.stringify(waiter.error ?? 'no delta')}`));
        } else {
          resolve({
            ms: waiter.firstDeltaAt - postedAt.value,
            runningMs: (waiter.runningAt ?? Number.NaN) - postedAt.value,
            placeholderMs: (waiter.placeholderAt ?? Number.NaN) - postedAt.value,
          });
        }
      },
    };
    waiters.set(key, waiter);
  });
}

/**
 * Posts one operator message and waits for the named connections' turns. Resolves with the latest first delta as
 * a sample (post → first delta), and each turn's.
 */
async function viaHal(host, roomId, connectionIds, text, tag = newTag()) {
  const postedAt = { value: 0 };
  const turns = connectionIds.map((id) => expectTurn(roomId, id, postedAt));
  // Awaited below; if the post itself fails first, their time-outs must not end the run as unhandled rejections.
  for (const turn of turns) turn.catch(() => {});
  postedAt.value = now();
  const { body } = await halCall(host, 'POST', `/ops/api/ai/rooms/${roomId}/messages`, {
    text: `${text} [t:${tag}]`,
  });
  const acceptedMs = now() - postedAt.value;
  if (body.turns.length !== connectionIds.length) throw new Error(`expected ${connectionIds.length} turns`);
  const each = await Promise.all(turns);
  const last = each.reduce((latest, turn) => (turn.ms > latest.ms ? turn : latest));
  return { ...last, acceptedMs, startedAt: postedAt.value, tag, each: each.map((turn) => turn.ms) };
}

// ---------------------------------------------------------------------------------------------------------------
// The direct baselines: request → first non-empty content chunk.

async function viaRaw(tag = newTag()) {
  const startedAt = now();
  const response = await request(`${baseUrl}/chat/completions`, {
    method: 'POST',
    dispatcher: directAgent,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.direct}` },
    body: JSON.stringify({
      model: 'bench-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: `Status? [t:${tag}]` }],
    }),
  });
  if (response.statusCode !== 200) throw new Error(`raw: ${response.statusCode}`);
  let firstToken;
  await forEachSseFrame(response.body, (frame) => {
    if (firstToken !== undefined) return;
    const { data } = parseSseFrame(frame);
    if (data === '' || data === '[DONE]') return;
    if (JSON.parse(data).choices?.[0]?.delta?.content) firstToken = now() - startedAt;
  });
  if (firstToken === undefined) throw new Error('raw: no content');
  return { ms: firstToken, startedAt, tag };
}

const adapterModel = createProvider({ provider: 'openai', apiKey: keys.direct, baseUrl }).languageModel(
  'bench-model',
);
async function viaAdapter(tag = newTag()) {
  const startedAt = now();
  let firstToken;
  const { stream } = await adapterModel.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: `Status? [t:${tag}]` }] }],
  });
  for await (const part of stream) {
    if (part.type === 'text-delta' && part.delta && firstToken === undefined) firstToken = now() - startedAt;
    if (part.type === 'error') throw part.error;
  }
  if (firstToken === undefined) throw new Error('adapter: no content');
  return { ms: firstToken, startedAt, tag };
}

// The floor: post → first delta through the pass-through host (floor-proxy.mjs), on its own SSE stream per id.
const floorWaiters = new Map();
async function openFloorStream(id) {
  const controller = new AbortController();
  const response = await request(`${floorUrl}/events?id=${id}`, {
    method: 'GET',
    dispatcher: floorAgent,
    signal: controller.signal,
    // The floor sends no heartbeat: with several variants, setting up their 64 connections kept this stream
    // silent past undici's 300 s body timeout, which ended the run.
    bodyTimeout: 0,
  });
  readFrames(response, controller, (frame) => {
    const at = now();
    const { event, data: text } = parseSseFrame(frame);
    const data = JSON.parse(text || 'null');
    const waiter = floorWaiters.get(id);
    if (!waiter || !data) return;
    if (event === 'delta') waiter.first[data.model] ??= at;
    if (event === 'done') waiter.done(data);
  });
}

/** One post to the floor that `models` requests answer; the sample is the last model's first delta. */
async function viaFloor(id, models = 1, tag = newTag()) {
  const finished = new Promise((resolve, reject) => {
    let left = models;
    const timer = setTimeout(() => reject(new Error(`floor ${id} timed out`)), TURN_TIMEOUT_MS);
    floorWaiters.set(id, {
      first: [],
      done(data) {
        if (data.error) reject(new Error(`floor: ${data.error}`));
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  const startedAt = now();
  const response = await request(`${floorUrl}/post?id=${id}`, {
    method: 'POST',
    dispatcher: floorAgent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: `Status? [t:${tag}]`, models }),
  });
  await response.body.text();
  await finished;
  const { first } = floorWaiters.get(id);
  floorWaiters.delete(id);
  if (first.length !== models) throw new Error(`floor ${id}: ${first.length} of ${models} answered`);
  return { ms: Math.max(...first) - startedAt, startedAt, tag };
}

const parallel = (count, run) => Promise.all(Array.from({ length: count }, (_, index) => run(index)));

/** `count` direct requests at once under one tag: the sample is the last first token (fan-out's baseline). */
async function lastOf(count, run) {
  const tag = newTag();
  const samples = await parallel(count, () => run(tag));
  return {
    ms: Math.max(...samples.map((sample) => sample.ms)),
    startedAt: Math.min(...samples.map((s) => s.startedAt)),
    tag,
  };
}

/** Adds `providerMs` (start → the fake has the whole request) to the samples of a phase. */
async function attachArrivals(phase) {
  const arrivals = await askFake('arrivals');
  for (const samples of [phase.raw, phase.adapter, phase.floor, ...Object.values(phase.hosts)]) {
    for (const sample of samples) {
      const arrivedAt = arrivals[sample.tag];
      if (arrivedAt !== undefined) sample.toProviderMs = arrivedAt - sample.startedAt;
    }
  }
  return phase;
}

// ---------------------------------------------------------------------------------------------------------------
// The run. Within each round the three paths take turns, so drift (other processes on the machine) hits all three.

const results = {};
/** A phase's samples: the direct baselines and the floor, and one list per host. */
const newPhase = () => ({
  raw: [],
  adapter: [],
  floor: [],
  hosts: Object.fromEntries(hosts.map((host) => [host.name, []])),
  cpuMsPerTurn: {},
});
const unifiedOf = (host) => host.rooms.find((room) => room.kind === 'unified').id;
const directRoomOf = (host, connection) => host.rooms.find((room) => room.connectionId === connection.id).id;
try {
  for (const host of hosts) {
    await addConnections(host, FAN_OUT);
    await openStream(host, unifiedOf(host));
    for (const connection of host.connections) await openStream(host, directRoomOf(host, connection));
  }
  await openFloorStream('single');
  await openFloorStream('fan-out');

  // Warm-up: JIT, connection pools, prepared statements.
  for (let index = 0; index < 3; index += 1) {
    await viaRaw();
    await viaAdapter();
    await viaFloor('single');
    for (const host of hosts) {
      const first = host.connections[0];
      await viaHal(host, directRoomOf(host, first), [first.id], 'warm-up');
    }
  }
  await askFake('arrivals');
  {
    const idle = hosts.map((host) => cpuMark(host));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const [index, host] of hosts.entries()) {
      const after = halCpuMs(host);
      if (idle[index].cpu !== undefined && after !== undefined)
        host.idleCpuMsPerS = (after - idle[index].cpu) / ((now() - idle[index].at) / 1000);
    }
  }
  /** Runs `sample` for each host in turn, adding to the phase (and its CPU time to the host's). */
  const eachHost = async (phase, cpu, sample) => {
    for (const host of hosts) {
      const mark = cpuMark(host);
      const samples = await sample(host);
      phase.hosts[host.name].push(...[samples].flat());
      const spent = halCpuMs(host);
      if (mark.cpu !== undefined && spent !== undefined) {
        cpu[host.name] =
          (cpu[host.name] ?? 0) + spent - mark.cpu - (host.idleCpuMsPerS * (now() - mark.at)) / 1000;
      }
    }
  };
  const perTurn = (cpu, turns) =>
    Object.fromEntries(
      hosts.map((host) => [host.name, cpu[host.name] === undefined ? null : round(cpu[host.name] / turns)]),
    );

  log(`1 in flight: ${ROUNDS.single} rounds`);
  const single = newPhase();
  const singleCpu = {};
  for (let index = 0; index < ROUNDS.single; index += 1) {
    single.raw.push(await viaRaw());
    single.adapter.push(await viaAdapter());
    single.floor.push(await viaFloor('single'));
    await eachHost(single, singleCpu, (host) => {
      const first = host.connections[0];
      return viaHal(host, directRoomOf(host, first), [first.id], `Round ${index}: status of the servers?`);
    });
  }
  single.cpuMsPerTurn = perTurn(singleCpu, ROUNDS.single);
  results.single = await attachArrivals(single);

  // Fan-out: one unified message (no @name: every active model answers), the last model's first delta.
  log(`fan-out to ${FAN_OUT}: ${ROUNDS.fanOut} rounds`);
  const fanOut = newPhase();
  const fanOutCpu = {};
  for (let index = 0; index < ROUNDS.fanOut; index += 1) {
    fanOut.raw.push(await lastOf(FAN_OUT, viaRaw));
    fanOut.adapter.push(await lastOf(FAN_OUT, viaAdapter));
    fanOut.floor.push(await viaFloor('fan-out', FAN_OUT));
    await eachHost(fanOut, fanOutCpu, (host) =>
      viaHal(
        host,
        unifiedOf(host),
        host.connections.map((connection) => connection.id),
        `Round ${index}: everyone, how are the servers?`,
      ),
    );
  }
  fanOut.cpuMsPerTurn = perTurn(fanOutCpu, ROUNDS.fanOut * FAN_OUT);
  results.fanOut = await attachArrivals(fanOut);

  // 64 in flight: 64 connections, 64 direct rooms (each with its own SSE stream), 64 posts at once.
  log(`${CONCURRENT} in flight: adding connections`);
  for (const host of hosts) {
    await addConnections(host, CONCURRENT);
    for (const connection of host.connections.slice(FAN_OUT))
      await openStream(host, directRoomOf(host, connection));
  }
  for (let slot = 0; slot < CONCURRENT; slot += 1) await openFloorStream(`c${slot}`);
  await parallel(CONCURRENT, (slot) => viaFloor(`c${slot}`));
  for (const host of hosts) {
    // After minutes of setting up the other hosts, a keep-alive socket to the fake may be closed by the fake just
    // as HAL reuses it (seen with four variants on a loaded machine): a failed warm-up turn is noted, not fatal.
    await parallel(CONCURRENT, (index) =>
      viaHal(
        host,
        directRoomOf(host, host.connections[index]),
        [host.connections[index].id],
        'warm-up',
      ).catch((error) => {
        log(`warm-up turn failed on ${host.name}: ${error.message}`);
        results.warmUpFailures = [...(results.warmUpFailures ?? []), `${host.name}: ${error.message}`];
      }),
    );
  }
  await askFake('arrivals');
  log(`${CONCURRENT} in flight: ${ROUNDS.concurrent} rounds`);
  const concurrent = newPhase();
  const concurrentCpu = {};
  for (let index = 0; index < ROUNDS.concurrent; index += 1) {
    concurrent.raw.push(...(await parallel(CONCURRENT, () => viaRaw())));
    concurrent.adapter.push(...(await parallel(CONCURRENT, () => viaAdapter())));
    concurrent.floor.push(...(await parallel(CONCURRENT, (slot) => viaFloor(`c${slot}`))));
    await eachHost(concurrent, concurrentCpu, (host) =>
      parallel(CONCURRENT, (slot) =>
        viaHal(
          host,
          directRoomOf(host, host.connections[slot]),
          [host.connections[slot].id],
          `Round ${index}: status?`,
        ),
      ),
    );
  }
  concurrent.cpuMsPerTurn = perTurn(concurrentCpu, ROUNDS.concurrent * CONCURRENT);
  results.concurrent = await attachArrivals(concurrent);

  // Cross-instance (issue #20): a second `hal serve` on the postgres host's database and data folder; A runs the
  // turn, a panel stream on B receives it. B − A per delta, for the same frames on both.
  const postgresHost = hosts.find((host) => host.env.HAL_DATABASE_URL?.startsWith('postgres'));
  if (postgresHost) {
    const index = hosts.indexOf(postgresHost);
    log("cross-instance: starting instance B on the postgres host's database and data folder");
    const b = await startHal({ name: 'postgres-b', env: postgresHost.env }, index, { expectPassword: false });
    b.password = postgresHost.password;
    const { body, headers } = await halCall(b, 'POST', '/ops/login', {
      username: 'admin',
      password: b.password,
    });
    b.cookie = [headers['set-cookie']]
      .flat()
      .filter(Boolean)
      .map((line) => String(line).split(';')[0])
      .join('; ');
    b.csrfToken = body.csrfToken;
    const open = (host) => async (path) => {
      const controller = new AbortController();
      const response = await request(`${host.url}${path}`, {
        method: 'GET',
        dispatcher: halAgent,
        headers: { cookie: host.cookie, accept: 'text/event-stream' },
        signal: controller.signal,
        bodyTimeout: 0,
      });
      if (response.statusCode !== 200) throw new Error(`events on ${host.name}: ${response.statusCode}`);
      return { body: response.body, abort: () => controller.abort() };
    };
    const connection = postgresHost.connections[0];
    const roomId = directRoomOf(postgresHost, connection);
    log(`cross-instance: ${ROUNDS.single} turns`);
    const cross = await measureCrossInstance({
      openA: open(postgresHost),
      openB: open(b),
      // The room's own waiter (its stream on A) must see the turn end too, or the next post would overlap it.
      post: (text) => viaHal(postgresHost, roomId, [connection.id], text),
      roomId,
      connectionId: connection.id,
      rounds: ROUNDS.single,
      now,
    });
    results.crossInstance = {
      firstDelta: summarize(cross.first),
      everyDelta: summarize(cross.every),
      unpairedDeltas: cross.unpaired,
    };
  }
} finally {
  results.bodyBytes = await Promise.race([
    askFake('stats'),
    new Promise((resolve) => setTimeout(resolve, 2000).unref()),
  ]);
  for (const stream of streams) stream.controller.abort();
  await Promise.all([halAgent.close(), directAgent.close(), floorAgent.close()]);
  // `hal serve` on SIGTERM: how long it takes to exit (null: it did not, and was killed).
  results.shutdownMs = Object.fromEntries(
    (await stopChildren()).map((ms, index) => [
      ['fake', 'floor', ...hosts.map((host) => host.name)][index],
      ms,
    ]),
  );
  rmSync(dataDir, { recursive: true, force: true });
  for (const database of benchDatabases) {
    await database
      .drop()
      .catch((error) => console.warn(`could not drop the bench database: ${error.message}`));
  }
  postgresServer.stop?.();
}

// ---------------------------------------------------------------------------------------------------------------
// Report.

function compare(phase, host) {
  const path = (samples) => {
    const split = samples.filter((sample) => sample.toProviderMs !== undefined);
    return {
      ...summarize(samples.map((sample) => sample.ms)),
      // Start → the provider has the whole request, and the rest: provider wait + streaming back.
      toProviderMedianMs: round(summarize(split.map((sample) => sample.toProviderMs)).medianMs),
      fromProviderMedianMs: round(summarize(split.map((sample) => sample.ms - sample.toProviderMs)).medianMs),
    };
  };
  const raw = path(phase.raw);
  const adapter = path(phase.adapter);
  const floor = path(phase.floor);
  const samples = phase.hosts[host.name];
  const median = (key) => round(summarize(samples.map((sample) => sample[key])).medianMs);
  // Post → 202, → `turn running`, → streaming placeholder `message` (the model is called next), on the SSE stream.
  const hal = {
    ...path(samples),
    stagesMedianMs: {
      accepted: median('acceptedMs'),
      running: median('runningMs'),
      placeholder: median('placeholderMs'),
    },
  };
  const versus = (baseline) => ({
    addedMedianMs: round(hal.medianMs - baseline.medianMs),
    addedP99Ms: round(hal.p99Ms - baseline.p99Ms),
    ratioMedian: round(hal.medianMs / baseline.medianMs, 3),
    ratioP99: round(hal.p99Ms / baseline.p99Ms, 3),
  });
  return {
    raw,
    adapter,
    floor,
    hal: { ...hal, cpuMsPerTurn: phase.cpuMsPerTurn[host.name] ?? null },
    vsRaw: versus(raw),
    vsAdapter: versus(adapter),
    // The machine's share: what the pass-through host adds over raw; HAL's own share is vsFloor.
    floorVsRaw: {
      addedMedianMs: round(floor.medianMs - raw.medianMs),
      addedP99Ms: round(floor.p99Ms - raw.p99Ms),
      ratioMedian: round(floor.medianMs / raw.medianMs, 3),
      ratioP99: round(floor.p99Ms / raw.p99Ms, 3),
    },
    vsFloor: versus(floor),
  };
}

const verdict = (value, limit) => ({ value, limit, met: value <= limit });
/** One host's report: the three cases against the baselines, and the targets. */
function report(host) {
  const single = compare(results.single, host);
  const fanOut = {
    ...compare(results.fanOut, host),
    halEachModel: summarize(results.fanOut.hosts[host.name].flatMap((sample) => sample.each)),
  };
  const concurrent = compare(results.concurrent, host);
  const targets = {
    singleAddedMedianMs: verdict(single.vsRaw.addedMedianMs, TARGETS.singleAddedMs),
    concurrentRatioMedian: verdict(concurrent.vsRaw.ratioMedian, TARGETS.concurrentMedianRatio),
    concurrentRatioP99: verdict(concurrent.vsRaw.ratioP99, TARGETS.concurrentP99Ratio),
    fanOutAddedMedianMs: verdict(fanOut.vsRaw.addedMedianMs, TARGETS.fanOutAddedMs),
  };
  return {
    name: host.name,
    env: host.env,
    halIdleCpuMsPerS: round(host.idleCpuMsPerS),
    targets,
    single,
    fanOut,
    concurrent,
  };
}
const reports = hosts.map(report);
const several = reports.length > 1;
const sizes = (list = []) => {
  const sorted = [...list].sort((a, b) => a - b);
  return { n: sorted.length, median: percentile(sorted, 50), max: sorted.at(-1) ?? null };
};

/** Rows of the tables: each case, once per host (named when there are several). */
const rows = ['single', 'fanOut', 'concurrent'].flatMap((key) =>
  reports.map((entry) => {
    const label = {
      single: '1 in flight',
      fanOut: `fan-out ${FAN_OUT} (last)`,
      concurrent: `${CONCURRENT} in flight`,
    }[key];
    return [several ? `${label} ${entry.name}` : label, entry[key]];
  }),
);
const width = Math.max(20, ...rows.map(([name]) => name.length + 2));
const pad = (value, size) => String(value).padStart(size);
console.log(
  `\nfirst token ${FIRST_TOKEN_MS} ms; ms = post → first token (direct) / first SSE delta (HAL); ratio vs raw undici\n`,
);
console.log(
  `${'case'.padEnd(width)}${pad('raw p50', 9)}${pad('p99', 8)}${pad('adapter', 9)}${pad('p99', 8)}${pad('HAL p50', 9)}${pad('p99', 8)}${pad('+p50', 8)}${pad('+p99', 8)}${pad('×p50', 7)}${pad('×p99', 7)}`,
);
for (const [name, row] of rows) {
  console.log(
    `${name.padEnd(width)}${pad(row.raw.medianMs, 9)}${pad(row.raw.p99Ms, 8)}${pad(row.adapter.medianMs, 9)}${pad(row.adapter.p99Ms, 8)}${pad(row.hal.medianMs, 9)}${pad(row.hal.p99Ms, 8)}${pad(row.vsRaw.addedMedianMs, 8)}${pad(row.vsRaw.addedP99Ms, 8)}${pad(row.vsRaw.ratioMedian, 7)}${pad(row.vsRaw.ratioP99, 7)}`,
  );
}
console.log(
  '\nthe floor (floor-proxy.mjs: a pass-through host, same hops and body size, no database): p50 / p99, added over raw, and HAL over the floor',
);
for (const [name, row] of rows) {
  console.log(
    `  ${name.padEnd(width - 2)} floor ${row.floor.medianMs} / ${row.floor.p99Ms}   floor − raw +${row.floorVsRaw.addedMedianMs} / +${row.floorVsRaw.addedP99Ms} (×${row.floorVsRaw.ratioMedian} / ×${row.floorVsRaw.ratioP99})   HAL − floor +${row.vsFloor.addedMedianMs} / +${row.vsFloor.addedP99Ms}`,
  );
}
for (const entry of reports) {
  console.log(`\ntargets (vs raw undici)${several ? `, ${entry.name}` : ''}:`);
  for (const [name, target] of Object.entries(entry.targets)) {
    const miss = target.met ? '' : ` — missed by ${round(target.value - target.limit, 3)}`;
    console.log(`  ${target.met ? 'met   ' : 'MISSED'} ${name}: ${target.value} ≤ ${target.limit}${miss}`);
  }
}
const bodyBytes = {
  hal: sizes(results.bodyBytes?.hal),
  direct: sizes(results.bodyBytes?.direct),
  floor: sizes(results.bodyBytes?.floor),
};
console.log(
  '\nwhere the time goes (medians, ms): start → provider has the request | provider has it → first token',
);
for (const [name, row] of rows) {
  const part = (entry) => `${entry.toProviderMedianMs} | ${entry.fromProviderMedianMs}`;
  console.log(
    `  ${name.padEnd(width - 2)} raw ${part(row.raw)}   adapter ${part(row.adapter)}   floor ${part(row.floor)}   HAL ${part(row.hal)}`,
  );
}
console.log(
  'HAL stages after the post (medians, ms): 202 · turn running · placeholder message · provider has it; HAL CPU per turn',
);
for (const [name, row] of rows) {
  const { accepted, running, placeholder } = row.hal.stagesMedianMs;
  console.log(
    `  ${name.padEnd(width - 2)} ${accepted} · ${running} · ${placeholder} · ${row.hal.toProviderMedianMs}; ${row.hal.cpuMsPerTurn} ms CPU`,
  );
}
for (const entry of reports) {
  console.log(
    `HAL${several ? ` ${entry.name}` : ''} idle: ${entry.halIdleCpuMsPerS} ms CPU per second (not counted in the turns')`,
  );
}
console.log(
  `exit after SIGTERM (ms; null = killed after the grace period): ${JSON.stringify(results.shutdownMs)}`,
);
console.log(`load average (1 min) at start ${loadAtStart}, at end ${round(loadavg()[0])} on ${cpus} cores`);
if (postgresServer.skipped) console.log(`PostgreSQL: skipped (${postgresServer.skipped})`);
if (results.crossInstance) {
  const { firstDelta, everyDelta, unpairedDeltas } = results.crossInstance;
  console.log(
    `cross-instance delta (B's panel − A's, PostgreSQL LISTEN/NOTIFY): first delta p50 ${firstDelta.medianMs} / p99 ${firstDelta.p99Ms} ms (n ${firstDelta.n}); every delta p50 ${everyDelta.medianMs} / p99 ${everyDelta.p99Ms} ms (n ${everyDelta.n}); unpaired ${unpairedDeltas}`,
  );
}
console.log(
  `\nrequest body to the provider: HAL median ${bodyBytes.hal.median} B (max ${bodyBytes.hal.max}), direct ${bodyBytes.direct.median} B, floor ${bodyBytes.floor.median} B`,
);

const output = join(resultsDir, process.env.BENCH_OUTPUT ?? 'rooms.json');
mkdirSync(resultsDir, { recursive: true });
// The first host's report at the top level (one host: the file as before); every host's under `variants`.
const { name: _name, env: _env, halIdleCpuMsPerS, ...firstReport } = reports[0];
writeFileSync(
  output,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      firstTokenMs: FIRST_TOKEN_MS,
      machine: { cpus, loadAverageAtStart: loadAtStart, loadAverageAtEnd: round(loadavg()[0]) },
      halIdleCpuMsPerS,
      shutdownMs: results.shutdownMs,
      rounds: ROUNDS,
      ...firstReport,
      ...(several ? { variants: reports } : {}),
      ...(results.crossInstance ? { crossInstance: results.crossInstance } : {}),
      ...(postgresServer.skipped ? { postgresSkipped: postgresServer.skipped } : {}),
      requestBodyBytes: bodyBytes,
      wallS: round((now() - started) / 1000, 1),
    },
    null,
    2,
  )}\n`,
);
console.log(`wrote ${output} in ${round((now() - started) / 1000, 1)} s`);
// Undici's global pool (the adapter's) may hold the loop open a while; everything is reported, so leave now.
process.exit(process.exitCode ?? 0);
