// The floor: the least that ANY host sitting where HAL sits adds on this machine. It takes an HTTP post in, sends a
// model request out, and writes the first token back on an SSE stream that the client holds open. It has no
// database, no session and no prompt building, and its request body is the size of HAL's (encoded once at start).
// What HAL adds beyond this floor is HAL's own. What the floor adds over the raw baseline is the price this machine
// charges for the extra process and the two extra hops.
//
// run.mjs starts it with an IPC channel; it answers `ready` with its URL.
//   GET  /events?id=<stream>                     an SSE stream: `delta` {model, text} frames, then `done` {model}
//   POST /post?id=<stream>  {text, models?: n}   sends n model requests (fan-out), answers 202 once they are written
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { forEachSseFrame, parseSseFrame } from './sse-frames.mjs';

// The undici HAL's adapter uses (apps/hal does not depend on undici directly), as run.mjs does.
const { Agent, request } = createRequire(
  fileURLToPath(import.meta.resolve('@hal-ai/providers/package.json')),
)('undici');

const baseUrl = process.env.BENCH_BASE_URL;
const key = process.env.BENCH_FLOOR_KEY;
const bodyBytes = Number(process.env.BENCH_FLOOR_BODY_BYTES ?? 45_000);
// A system prompt of HAL's size, as JSON once: HAL also keeps the encoding of what repeats.
const system = Buffer.from(JSON.stringify('x'.repeat(bodyBytes)));
const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });
const streams = new Map();

async function relay(id, model, text) {
  const body = Buffer.concat([
    Buffer.from('{"model":"bench-model","stream":true,"messages":[{"role":"system","content":'),
    system,
    Buffer.from(`},{"role":"user","content":${JSON.stringify(text)}}]}`),
  ]);
  const response = await request(`${baseUrl}/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
  });
  await forEachSseFrame(response.body, (frame) => {
    const { data } = parseSseFrame(frame);
    if (data === '' || data === '[DONE]') return;
    const content = JSON.parse(data).choices?.[0]?.delta?.content;
    if (content)
      streams.get(id)?.write(`event: delta\ndata: ${JSON.stringify({ model, text: content })}\n\n`);
  });
  streams.get(id)?.write(`event: done\ndata: ${JSON.stringify({ model })}\n\n`);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  const id = url.searchParams.get('id') ?? '';
  if (req.method === 'GET' && url.pathname === '/events') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    streams.set(id, res);
    req.on('close', () => streams.delete(id));
    return;
  }
  if (req.method === 'POST' && url.pathname === '/post') {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const { text, models = 1 } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (let model = 0; model < models; model += 1) {
        relay(id, model, text).catch((error) => {
          streams.get(id)?.write(`event: done\ndata: ${JSON.stringify({ model, error: String(error) })}\n\n`);
        });
      }
      // As HAL: the answer after the requests (undici writes them from a setImmediate callback).
      setImmediate(() =>
        setImmediate(() => res.writeHead(202, { 'content-type': 'application/json' }).end('{}')),
      );
    });
    return;
  }
  res.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
});
process.on('SIGTERM', () => {
  for (const stream of streams.values()) stream.end();
  server.close();
  agent.close().finally(() => process.exit(0));
});
