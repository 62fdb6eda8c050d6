// The OpenAI-compatible fake in its own process, so that its work never runs on HAL's event loop (a real provider's
// would not even share the CPU). run.mjs starts it with an IPC channel and two generated keys: one for HAL's
// connections, one for the direct baseline, so the request sizes of the two paths are counted apart.
import { createFakeOpenAI } from '@hal-ai/providers/testing';

const firstTokenMs = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 300);
const chunks = Number(process.env.BENCH_CHUNKS ?? 20);
const chunkDelayMs = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 5);
const keys = {
  hal: process.env.BENCH_HAL_KEY,
  direct: process.env.BENCH_DIRECT_KEY,
  floor: process.env.BENCH_FLOOR_KEY,
};
const text = 'The quick brown fox jumps over the lazy dog. '.repeat(4).trim();
// Body sizes come from the header, so counting costs nothing per request.
const bodyBytes = { hal: [], direct: [], floor: [] };
// When each tagged request (`[t:<tag>]` in its last user message) was fully received, on the clock both processes
// share (time origin + monotonic), so run.mjs can split a path into "before the provider" and "after".
let arrivals = {};
const TAG = /\[t:([a-z0-9]+)\]/g;

function tagOf(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.role !== 'user') continue;
    const tags = [...JSON.stringify(messages[index].content).matchAll(TAG)];
    if (tags.length > 0) return tags.at(-1)[1];
  }
  return undefined;
}

function pathOf(request) {
  const authorization = String(request.headers.authorization ?? '');
  if (authorization === `Bearer ${keys.hal}`) return 'hal';
  if (authorization === `Bearer ${keys.direct}`) return 'direct';
  if (keys.floor && authorization === `Bearer ${keys.floor}`) return 'floor';
  return undefined;
}

const fake = await createFakeOpenAI({
  models: [{ id: 'bench-model' }],
  respond: (request) => {
    const path = pathOf(request);
    if (!path) return { error: { status: 401, message: 'Incorrect API key provided.' } };
    const arrivedAt = performance.timeOrigin + performance.now();
    bodyBytes[path].push(Number(request.headers['content-length'] ?? 0));
    const tag = tagOf(request.body);
    if (tag) arrivals[tag] = arrivedAt;
    return { text, chunks, chunkDelayMs, firstByteDelayMs: firstTokenMs };
  },
});

process.on('message', (message) => {
  if (message === 'stats') process.send?.({ type: 'stats', bodyBytes });
  if (message === 'arrivals') {
    process.send?.({ type: 'arrivals', arrivals });
    arrivals = {};
  }
});
process.on('SIGTERM', () => {
  fake.close().then(() => process.exit(0));
});
process.send?.({ type: 'ready', baseUrl: fake.baseUrl, text });
