// Benchmark of issue #16 point 1: how busy the browser's main thread is while one 400-chunk reply streams into
// the unified room, with 2 and with 100 earlier exchanges in it. Real Chromium (playwright-core, Debian's
// /usr/bin/chromium) loads the BUILT panel bundle (dist/browser/panel.js); a small server on 127.0.0.1 answers the
// panel's HTTP contract (SPEC §13/§14 shapes: session, prefs, connections, rooms, messages, SSE events), so what is
// measured is the panel alone, not the host. Busy time is Chromium's own `TaskDuration` metric (CDP
// Performance.getMetrics: time the renderer's main thread spent running tasks), taken before the first frame and
// after the page shows the finished reply; wall time is the same span on the page's clock.
// Writes bench-results/panel-stream.json. Not a test: it asserts nothing and its numbers depend on the machine.
//
// Environment: BENCH_PANEL_JS / BENCH_PANEL_CSS = another bundle to measure (e.g. an older build, for before/after);
// BENCH_CHUNK_MS (default 10) = the gap between chunks; BENCH_RUNS (default 3) = runs per room size (median kept);
// HAL_CHROMIUM = the browser (default /usr/bin/chromium).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');
const resultsDir = join(packageDir, 'bench-results');
const panelJs = process.env.BENCH_PANEL_JS ?? join(packageDir, 'dist/browser/panel.js');
const panelCss = process.env.BENCH_PANEL_CSS ?? join(packageDir, 'dist/browser/panel.css');
const CHUNKS = 400;
const CHUNK_MS = Number(process.env.BENCH_CHUNK_MS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SIZES = [2, 100];
const TARGETS = { ratio: 1.2, busyShare: 0.2 };
const CHROMIUM = process.env.HAL_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const connection = {
  id: 'c1',
  name: 'claude',
  provider: 'anthropic',
  auth: 'api_key',
  baseUrl: null,
  model: 'model-a',
  models: ['model-a', 'model-b'],
  identity: { role: '', traits: '', instructions: '' },
  tools: { preset: 'all', enabled: [] },
  reasoning: 'off',
  status: 'active',
  lastCheckedAt: null,
  lastError: null,
  secret: { hasKey: true, hint: '…abcd' },
};
const unified = { id: 'u', kind: 'unified', title: '', fixed: true, connectionId: null, position: 0 };

/** A model reply like the ones operators get: paragraphs, a list, code, a table. */
function replyText(n) {
  return [
    `Server **web-${n}** looks healthy. Load is ${n % 7}.${n % 10} and the last deploy finished.`,
    '- jobs: 3 succeeded, 0 failed\n- incidents: none open\n- disk: 61% used',
    '```sh\nhal jobs list --state running\n```',
    '| metric | value |\n| --- | --- |\n| cpu | 23% |\n| memory | 4.1 GB |',
    `Next I would check the release notes of [v1.${n}](https://example.invalid/releases/${n}) before deploying.`,
  ].join('\n\n');
}

function message(seq, role, content, extra = {}) {
  return {
    id: `m${seq}`,
    roomId: 'u',
    seq,
    role,
    connectionId: role === 'assistant' ? 'c1' : null,
    model: role === 'assistant' ? 'model-a' : null,
    content,
    status: 'complete',
    error: null,
    relayDepth: 0,
    relayedFrom: null,
    usage: role === 'assistant' ? { inputTokens: 900, outputTokens: 120 } : null,
    createdAt: new Date(1_700_000_000_000 + seq * 1000).toISOString(),
    ...extra,
  };
}

function history(exchanges) {
  const messages = [];
  for (let n = 1; n <= exchanges; n += 1) {
    messages.push(message(messages.length + 1, 'user', [{ type: 'text', text: `@claude how is web-${n}?` }]));
    messages.push(
      message(messages.length + 1, 'assistant', [
        { type: 'tool-call', toolCallId: `t${n}`, toolName: 'hal_server_get', input: { id: `web-${n}` } },
        { type: 'text', text: replyText(n) },
      ]),
    );
  }
  return messages;
}

/** The 400 chunks of the streamed reply: about 2 400 characters of markdown in paragraphs and a list. */
function replyChunks() {
  const chunks = [];
  for (let index = 0; index < CHUNKS; index += 1) {
    const paragraphEnd = index % 40 === 39;
    const listItem = index % 40 === 20;
    chunks.push(
      `${listItem ? '\n\n- ' : ''}word${index} ${index % 9 === 0 ? '**bold** ' : ''}${paragraphEnd ? '\n\n' : ''}`,
    );
  }
  return chunks;
}

function startServer() {
  const js = readFileSync(panelJs);
  const css = readFileSync(panelCss);
  const state = { messages: [], streams: new Set() };
  const page = `<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>panel bench</title>
<link rel="stylesheet" href="/ops/assets/panel.css"></head><body><div class="layout"><main class="content">
<h1>Overview</h1></main><aside data-hal-panel data-page="/ops"></aside></div>
<script type="module" src="/ops/assets/panel.js"></script></body></html>`;
  const json = (response, body, status = 200) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/ops') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end(page);
    }
    if (path === '/ops/assets/panel.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      return response.end(js);
    }
    if (path === '/ops/assets/panel.css') {
      response.writeHead(200, { 'content-type': 'text/css' });
      return response.end(css);
    }
    if (path === '/ops/api/session')
      return json(response, {
        operator: { id: 'o1', username: 'admin' },
        csrfToken: 'bench',
        recentAuthUntil: 0,
      });
    if (path === '/ops/api/ai/prefs')
      return json(response, { prefs: { panelOpen: true, panelWidth: 480, webAutoFetch: true } });
    if (path === '/ops/api/ai/connections')
      return json(response, { connections: [connection], providers: [], callbackUrl: '' });
    if (path === '/ops/api/ai/rooms') return json(response, { rooms: [unified] });
    if (path === '/ops/api/ai/commands') return json(response, { commands: [] });
    if (path === '/ops/api/ai/rooms/u/messages') {
      const after = Number(url.searchParams.get('after') ?? 0);
      return json(response, {
        messages: state.messages.filter((item) => item.seq > after),
        pending: 0,
        actions: [],
      });
    }
    if (path === '/ops/api/ai/rooms/u/events') {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      response.write(': open\n\n');
      state.streams.add(response);
      request.on('close', () => state.streams.delete(response));
      return;
    }
    json(response, { error: { code: 'not_found', message: path } }, 404);
  });
  let eventId = 0;
  const send = (event, data) => {
    eventId += 1;
    const frame = `event: ${event}\nid: ${eventId}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const stream of state.streams) stream.write(frame);
  };
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, state, send, close: () => server.close() });
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function metric(cdp, name) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((item) => item.name === name)?.value ?? 0;
}

async function runOnce(browser, server, exchanges) {
  server.state.messages = history(exchanges);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/ops`);
  await page.waitForSelector('[data-hal-panel][data-ready=true]');
  await page.waitForFunction(
    (count) => document.querySelectorAll('.hal-message').length >= count,
    exchanges * 2,
  );
  while (server.state.streams.size === 0) await sleep(20);
  await sleep(500);
  // Two sessions, two clocks: the main thread's CPU time (thread ticks) and its tasks' wall time.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  const wallCdp = await context.newCDPSession(page);
  await wallCdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  const seq = server.state.messages.length + 1;
  const streaming = message(seq, 'assistant', [], { status: 'streaming', usage: null, id: 'live' });
  // How many times the list changed (mutation callbacks): the number of renders that reached the DOM.
  await page.evaluate(() => {
    const counter = { renders: 0 };
    window.__benchCounter = counter;
    new MutationObserver(() => {
      counter.renders += 1;
    }).observe(document.querySelector('.hal-messages'), {
      childList: true,
      subtree: true,
      characterData: true,
    });
  });
  const busyBefore = await metric(cdp, 'TaskDuration');
  const taskWallBefore = await metric(wallCdp, 'TaskDuration');
  const wallBefore = await page.evaluate(() => performance.now());
  server.send('message', { message: streaming });
  const chunks = replyChunks();
  for (const text of chunks) {
    server.send('delta', { messageId: 'live', connectionId: 'c1', text });
    await sleep(CHUNK_MS);
  }
  const final = { ...streaming, status: 'complete', content: [{ type: 'text', text: chunks.join('') }] };
  server.state.messages.push(final);
  server.send('message', { message: final });
  await page.waitForSelector('[data-message-id=live].hal-status-complete');
  const wallAfter = await page.evaluate(() => performance.now());
  const busyAfter = await metric(cdp, 'TaskDuration');
  const taskWallAfter = await metric(wallCdp, 'TaskDuration');
  const shown = await page.evaluate(() => document.querySelectorAll('.hal-message').length);
  const renders = await page.evaluate(() => window.__benchCounter.renders);
  await context.close();
  const wallMs = wallAfter - wallBefore;
  const busyMs = (busyAfter - busyBefore) * 1000;
  const taskWallMs = (taskWallAfter - taskWallBefore) * 1000;
  return {
    wallMs: round(wallMs),
    busyMs: round(busyMs),
    busyShare: round(busyMs / wallMs, 3),
    taskWallMs: round(taskWallMs),
    taskWallShare: round(taskWallMs / wallMs, 3),
    messages: shown,
    renders,
    busyMsPerRender: round(busyMs / Math.max(1, renders), 2),
  };
}

function round(value, digits = 1) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const server = await startServer();
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
const load = round(loadavg()[0], 2);
const cases = Object.fromEntries(SIZES.map((exchanges) => [exchanges, []]));
try {
  for (let run = 0; run < RUNS; run += 1) {
    // Sizes take turns, so noise from the rest of the machine hits both.
    for (const exchanges of SIZES) {
      const sample = await runOnce(browser, server, exchanges);
      cases[exchanges].push(sample);
      console.log(`[run ${run + 1}] ${exchanges} exchanges: ${JSON.stringify(sample)}`);
    }
  }
} finally {
  await browser.close();
  server.close();
}
const summary = Object.fromEntries(
  SIZES.map((exchanges) => {
    const samples = cases[exchanges];
    return [
      `exchanges${exchanges}`,
      {
        busyMsMedian: median(samples.map((sample) => sample.busyMs)),
        wallMsMedian: median(samples.map((sample) => sample.wallMs)),
        busyShareMedian: median(samples.map((sample) => sample.busyShare)),
        samples,
      },
    ];
  }),
);
const small = summary.exchanges2;
const large = summary.exchanges100;
const ratio = round(large.busyMsMedian / small.busyMsMedian, 2);
const result = {
  bundle: panelJs,
  chunks: CHUNKS,
  chunkMs: CHUNK_MS,
  runs: RUNS,
  ...summary,
  ratio,
  targets: {
    ratio: { target: TARGETS.ratio, value: ratio, met: ratio <= TARGETS.ratio },
    busyShare: {
      target: TARGETS.busyShare,
      value: Math.max(small.busyShareMedian, large.busyShareMedian),
      met: Math.max(small.busyShareMedian, large.busyShareMedian) <= TARGETS.busyShare,
    },
  },
  machine: { cpus: availableParallelism(), loadAtStart: load, loadAtEnd: round(loadavg()[0], 2) },
};
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'panel-stream.json'), `${JSON.stringify(result, null, 2)}\n`);
console.table({
  '2 exchanges': { busyMs: small.busyMsMedian, wallMs: small.wallMsMedian, busyShare: small.busyShareMedian },
  '100 exchanges': {
    busyMs: large.busyMsMedian,
    wallMs: large.wallMsMedian,
    busyShare: large.busyShareMedian,
  },
});
console.log(`ratio 100/2: ${ratio} (target ≤ ${TARGETS.ratio}); busy share target ≤ ${TARGETS.busyShare}`);
