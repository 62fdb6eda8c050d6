// Benchmark of issue #16 point 1: how busy the browser's main thread is while one 400-chunk reply streams into
// the unified room, with 2 and with 100 earlier exchanges in it. Real Chromium (playwright-core, Debian's
// /usr/bin/chromium) loads the BUILT panel bundle (dist/browser/panel.js) from a fake host on 127.0.0.1
// (bench-host.mjs), so what is measured is the panel alone, not the host. Busy time is Chromium's own
// `TaskDuration` metric (CDP Performance.getMetrics: time the renderer's main thread spent running tasks), taken
// when the first chunk is sent and after the page shows the finished reply; wall time is the same span on the
// page's clock. See README.md in this folder for what the numbers mean and the measured table.
//
// Honest by construction: one discarded warm-up run per bundle and size first (the browser's own start-up);
// then BENCH_RUNS rounds in which the sizes — and the bundles — take turns and swap order every round, so machine
// noise and any order effect hit every case alike; medians per case. After the measured runs, one traced run per
// case (not counted in the medians: tracing costs time itself) says where the busy time goes: script, gc,
// style, layout, paint, other (bench-trace.mjs).
//
// Writes bench-results/panel-stream.json. Not a test: it asserts nothing and its numbers depend on the machine.
//
// Environment: BENCH_PANEL_JS / BENCH_PANEL_CSS = the bundle to measure (default dist/browser/); BENCH_BASELINE_JS /
// BENCH_BASELINE_CSS = a second bundle (e.g. a build from before a change) measured beside it in the same run;
// BENCH_RUNS (default 3) = measured rounds; BENCH_CHUNK_MS (default 10) = the gap between chunks; BENCH_SIZES
// (default 2,100) = earlier exchanges per case; BENCH_TRACE=0 skips the traced runs; BENCH_PROFILE=1 adds a V8 CPU
// profile to each traced run and writes the functions with the most self time to bench-results/panel-profile.json;
// BENCH_CONSOLE_CSS = the console's stylesheet (default: apps/hal's); HAL_CHROMIUM = the browser (/usr/bin/chromium).
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { history, message, replyChunks, startServer } from './bench-host.mjs';
import { mainThreadBreakdown, profileSummary, TRACE_CATEGORIES } from './bench-trace.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');
const resultsDir = join(packageDir, 'bench-results');
const CHUNKS = 400;
const CHUNK_MS = Number(process.env.BENCH_CHUNK_MS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SIZES = (process.env.BENCH_SIZES ?? '2,100').split(',').map(Number);
const TRACE = process.env.BENCH_TRACE !== '0';
const PROFILE = process.env.BENCH_PROFILE === '1';
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

const bundles = {
  panel: {
    js: process.env.BENCH_PANEL_JS ?? join(packageDir, 'dist/browser/panel.js'),
    css: process.env.BENCH_PANEL_CSS ?? join(packageDir, 'dist/browser/panel.css'),
  },
};
if (process.env.BENCH_BASELINE_JS) {
  bundles.baseline = {
    js: process.env.BENCH_BASELINE_JS,
    css: process.env.BENCH_BASELINE_CSS ?? join(dirname(process.env.BENCH_BASELINE_JS), 'panel.css'),
  };
}
const BUNDLES = Object.keys(bundles);
// The console's stylesheet, for the frame the panel lives in (the bench reads the file; it imports nothing of apps/hal).
const consoleCss =
  process.env.BENCH_CONSOLE_CSS ?? join(packageDir, '../../apps/hal/src/domain/pages/assets/console.css');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function metric(cdp, name) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((item) => item.name === name)?.value ?? 0;
}

/** Whether the streaming reply is on screen: a reply below the fold skips style, layout and paint. */
function inView() {
  const list = document.querySelector('.hal-messages').getBoundingClientRect();
  const live = document.querySelector('[data-message-id=live]')?.getBoundingClientRect();
  return (
    live !== undefined &&
    live.bottom > list.top &&
    live.top < list.bottom &&
    list.bottom <= window.innerHeight
  );
}

/** One page load and one streamed reply; `mode` 'measure' reads the metrics, 'trace' records a trace too. */
async function runOnce(browser, server, bundle, exchanges, mode = 'measure') {
  server.state.messages = history(exchanges);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/ops?bundle=${bundle}`);
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
  if (mode === 'trace') {
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    if (PROFILE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
  }
  const busyBefore = await metric(cdp, 'TaskDuration');
  const taskWallBefore = await metric(wallCdp, 'TaskDuration');
  const wallBefore = await page.evaluate(() => performance.now());
  server.send('message', { message: streaming });
  const chunks = replyChunks(CHUNKS);
  let liveInViewMidway = false;
  for (const [index, text] of chunks.entries()) {
    server.send('delta', { messageId: 'live', connectionId: 'c1', text });
    await sleep(CHUNK_MS);
    if (index === chunks.length / 2) liveInViewMidway = await page.evaluate(inView);
  }
  const final = { ...streaming, status: 'complete', content: [{ type: 'text', text: chunks.join('') }] };
  server.state.messages.push(final);
  server.send('message', { message: final });
  await page.waitForSelector('[data-message-id=live].hal-status-complete');
  const wallAfter = await page.evaluate(() => performance.now());
  const busyAfter = await metric(cdp, 'TaskDuration');
  const taskWallAfter = await metric(wallCdp, 'TaskDuration');
  let breakdown;
  let profile;
  if (mode === 'trace') {
    if (PROFILE) profile = profileSummary((await cdp.send('Profiler.stop')).profile);
    breakdown = mainThreadBreakdown(JSON.parse((await browser.stopTracing()).toString('utf8')));
  }
  const shown = await page.evaluate(() => document.querySelectorAll('.hal-message').length);
  const liveInView = await page.evaluate(inView);
  // How far the list stands from its bottom when the reply is done (0: it followed the reply).
  const gapBelowPx = await page.evaluate(() => {
    const list = document.querySelector('.hal-messages');
    return Math.round(list.scrollHeight - list.scrollTop - list.clientHeight);
  });
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
    liveInViewMidway,
    liveInView,
    gapBelowPx,
    renders,
    busyMsPerRender: round(busyMs / Math.max(1, renders), 2),
    ...(breakdown ? { breakdown } : {}),
    ...(profile ? { profile } : {}),
  };
}

function round(value, digits = 1) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : round((sorted[middle - 1] + sorted[middle]) / 2, 3);
}

/** Round `run`'s order: every round swaps it, so no case is always the first on a fresh machine state. */
function turn(items, run) {
  return run % 2 === 0 ? items : [...items].reverse();
}

const server = await startServer(bundles, consoleCss);
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
const loadAtStart = round(loadavg()[0], 2);
const chromiumVersion = browser.version();
const samples = Object.fromEntries(
  BUNDLES.map((bundle) => [bundle, Object.fromEntries(SIZES.map((size) => [size, []]))]),
);
const traced = Object.fromEntries(BUNDLES.map((bundle) => [bundle, {}]));
try {
  for (const bundle of BUNDLES)
    for (const exchanges of SIZES) {
      const warm = await runOnce(browser, server, bundle, exchanges);
      console.log(`[warm-up, discarded] ${bundle} ${exchanges} exchanges: busyMs ${warm.busyMs}`);
    }
  for (let run = 0; run < RUNS; run += 1)
    for (const bundle of turn(BUNDLES, run))
      for (const exchanges of turn(SIZES, run)) {
        const sample = await runOnce(browser, server, bundle, exchanges);
        samples[bundle][exchanges].push(sample);
        console.log(`[run ${run + 1}] ${bundle} ${exchanges} exchanges: ${JSON.stringify(sample)}`);
      }
  if (TRACE)
    for (const bundle of BUNDLES)
      for (const exchanges of SIZES) {
        const sample = await runOnce(browser, server, bundle, exchanges, 'trace');
        traced[bundle][exchanges] = sample;
        console.log(`[traced] ${bundle} ${exchanges} exchanges: ${JSON.stringify(sample.breakdown)}`);
      }
} finally {
  await browser.close();
  server.close();
}

function summary(bundle) {
  const cases = Object.fromEntries(
    SIZES.map((exchanges) => {
      const list = samples[bundle][exchanges];
      const trace = traced[bundle][exchanges];
      return [
        `exchanges${exchanges}`,
        {
          busyMsMedian: median(list.map((sample) => sample.busyMs)),
          wallMsMedian: median(list.map((sample) => sample.wallMs)),
          busyShareMedian: median(list.map((sample) => sample.busyShare)),
          rendersMedian: median(list.map((sample) => sample.renders)),
          busyMsPerRenderMedian: median(list.map((sample) => sample.busyMsPerRender)),
          // Whether the reply was on screen midway and at the end in every run (if not, it cost less than it should).
          replyInView: list.every((sample) => sample.liveInViewMidway && sample.liveInView),
          samples: list,
          ...(trace ? { traced: trace } : {}),
        },
      ];
    }),
  );
  const small = cases[`exchanges${SIZES[0]}`];
  const large = cases[`exchanges${SIZES[SIZES.length - 1]}`];
  const ratio = round(large.busyMsMedian / small.busyMsMedian, 2);
  // Under load the number of renders per reply swings (deltas reach the page in bigger bunches when its main thread
  // waits for a core), and busy time follows it; the cost of one render does not, so it is given beside the ratio.
  const perRenderRatio = round(large.busyMsPerRenderMedian / small.busyMsPerRenderMedian, 2);
  const worstShare = Math.max(...Object.values(cases).map((item) => item.busyShareMedian));
  return {
    bundle: bundles[bundle].js,
    ...cases,
    ratio,
    perRenderRatio,
    targets: {
      ratio: { target: TARGETS.ratio, value: ratio, met: ratio <= TARGETS.ratio },
      busyShare: { target: TARGETS.busyShare, value: worstShare, met: worstShare <= TARGETS.busyShare },
    },
  };
}

const results = Object.fromEntries(BUNDLES.map((bundle) => [bundle, summary(bundle)]));
const machine = {
  cpus: availableParallelism(),
  cpuModel: cpus()[0]?.model ?? '',
  loadAtStart,
  loadAtEnd: round(loadavg()[0], 2),
  chromium: chromiumVersion,
};
const output = { chunks: CHUNKS, chunkMs: CHUNK_MS, runs: RUNS, sizes: SIZES, machine, ...results };
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'panel-stream.json'), `${JSON.stringify(output, null, 2)}\n`);
if (PROFILE) {
  const profiles = Object.fromEntries(
    BUNDLES.map((bundle) => [
      bundle,
      Object.fromEntries(SIZES.map((size) => [`exchanges${size}`, traced[bundle][size]?.profile ?? []])),
    ]),
  );
  writeFileSync(join(resultsDir, 'panel-profile.json'), `${JSON.stringify(profiles, null, 2)}\n`);
}
const rows = {};
for (const bundle of BUNDLES)
  for (const size of SIZES) {
    const item = results[bundle][`exchanges${size}`];
    const breakdown = item.traced?.breakdown;
    rows[`${bundle} ${size}`] = {
      busyMs: item.busyMsMedian,
      wallMs: item.wallMsMedian,
      busyShare: item.busyShareMedian,
      renders: item.rendersMedian,
      msPerRender: item.busyMsPerRenderMedian,
      inView: item.replyInView,
      ...(breakdown
        ? {
            script: breakdown.script,
            gc: breakdown.gc,
            style: breakdown.style,
            layout: breakdown.layout,
            paint: breakdown.paint,
            other: breakdown.other,
          }
        : {}),
    };
  }
console.table(rows);
// Where one render's time goes (the traced run's buckets over its own render count): the part that grows with the
// room shows here even when the runs' render counts differ.
const perRender = {};
for (const bundle of BUNDLES)
  for (const size of SIZES) {
    const trace = results[bundle][`exchanges${size}`].traced;
    if (!trace?.breakdown) continue;
    const per = (value) => round(value / Math.max(1, trace.renders), 2);
    const { script, style, layout, paint, other, totalMs } = trace.breakdown;
    perRender[`${bundle} ${size}`] = {
      renders: trace.renders,
      total: per(totalMs),
      script: per(script),
      style: per(style),
      layout: per(layout),
      paint: per(paint),
      other: per(other),
    };
  }
if (Object.keys(perRender).length > 0) console.table(perRender);
for (const bundle of BUNDLES)
  console.log(
    `${bundle}: ratio ${SIZES[SIZES.length - 1]}/${SIZES[0]} ${results[bundle].ratio} (target ≤ ${TARGETS.ratio}); ` +
      `per render ${results[bundle].perRenderRatio}; ` +
      `worst busy share ${results[bundle].targets.busyShare.value} (target ≤ ${TARGETS.busyShare})`,
  );
console.log(`machine: ${JSON.stringify(machine)}`);
