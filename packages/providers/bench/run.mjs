// Benchmark: time to first token and client CPU per streamed request, through the adapter versus a minimal raw
// client (undici `request` + eventsource-parser + JSON.parse — the least any correct client must do), at 1, 8 and
// 64 requests in flight. Writes bench-results/providers.json. Not a test: numbers vary with the machine.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { Agent, request } from 'undici';
import { createAnthropic } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const LEVELS = [1, 8, 64];
// Fewer rounds at high concurrency: each round there already holds 64 requests.
const ROUNDS = { 1: 20, 8: 6, 64: 3 };

const child = spawn(process.execPath, [join(here, 'fake-process.mjs')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const baseUrl = await new Promise((resolve, reject) => {
  child.stdout.once('data', (data) => resolve(String(data).trim()));
  child.once('exit', (code) => reject(new Error(`fake exited with ${code}`)));
});

const dispatcher = new Agent({ connections: 128 });
const body = {
  model: 'claude-bench',
  max_tokens: 512,
  stream: true,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
};
const model = createAnthropic({ apiKey: 'bench', baseUrl, dispatcher }).languageModel('claude-bench');

async function viaAdapter() {
  const started = performance.now();
  let firstToken;
  const { stream } = await model.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  });
  for await (const part of stream) {
    if (part.type === 'text-delta' && firstToken === undefined) firstToken = performance.now() - started;
    if (part.type === 'error') throw part.error;
  }
  return firstToken;
}

async function viaRaw() {
  const started = performance.now();
  let firstToken;
  const response = await request(`${baseUrl}/v1/messages`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(event) {
      const data = JSON.parse(event.data);
      if (data.type === 'content_block_delta' && firstToken === undefined)
        firstToken = performance.now() - started;
    },
  });
  for await (const chunk of response.body) parser.feed(decoder.decode(chunk, { stream: true }));
  return firstToken;
}

async function measure(run, inFlight, rounds = ROUNDS[inFlight] ?? 4) {
  const firstTokens = [];
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  let requests = 0;
  for (let round = 0; round < rounds; round += 1) {
    const results = await Promise.all(Array.from({ length: inFlight }, () => run()));
    firstTokens.push(...results);
    requests += inFlight;
  }
  const cpu = process.cpuUsage(cpuBefore);
  firstTokens.sort((a, b) => a - b);
  return {
    requests,
    ttftP50Ms: round(firstTokens[Math.floor(firstTokens.length / 2)]),
    ttftP95Ms: round(firstTokens[Math.floor(firstTokens.length * 0.95)]),
    cpuMsPerRequest: round((cpu.user + cpu.system) / 1000 / requests),
    wallMs: round(performance.now() - wallBefore),
  };
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}

const results = [];
try {
  // Warm both paths (JIT, connection pool) before measuring.
  await measure(viaRaw, 8, 5);
  await measure(viaAdapter, 8, 5);
  for (const inFlight of LEVELS) {
    const raw = await measure(viaRaw, inFlight);
    const adapter = await measure(viaAdapter, inFlight);
    const ratios = {
      ttftP50: round(adapter.ttftP50Ms / raw.ttftP50Ms),
      cpuPerRequest: round(adapter.cpuMsPerRequest / raw.cpuMsPerRequest),
    };
    results.push({ inFlight, raw, adapter, ratios });
    console.log(
      `in flight ${String(inFlight).padStart(2)}: TTFT p50 raw ${raw.ttftP50Ms} ms, adapter ${adapter.ttftP50Ms} ms ` +
        `(×${ratios.ttftP50}); CPU/request raw ${raw.cpuMsPerRequest} ms, adapter ${adapter.cpuMsPerRequest} ms ` +
        `(×${ratios.cpuPerRequest})`,
    );
  }
} finally {
  child.kill('SIGTERM');
  await dispatcher.close();
}

const at64 = results.find((result) => result.inFlight === 64);
console.log(
  `target ≤1.05× raw at 64 in flight: TTFT ×${at64?.ratios.ttftP50}, CPU ×${at64?.ratios.cpuPerRequest}`,
);
const output = join(here, '..', 'bench-results', 'providers.json');
await mkdir(dirname(output), { recursive: true });
await writeFile(
  output,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rounds: ROUNDS, results }, null, 2)}\n`,
);
console.log(`wrote ${output}`);
