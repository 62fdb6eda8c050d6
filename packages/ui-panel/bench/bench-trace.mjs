// Where the panel benchmark's main-thread time goes (bench/run.mjs). Two views, both from Chromium itself:
// - `mainThreadBreakdown(trace)`: a `devtools.timeline` trace of the renderer's main thread, each event's self
//   time (thread time where the trace has it) put in one bucket — script, gc, style, layout, paint, other — the
//   way the DevTools performance panel sums its "Summary" (an event the table does not know inherits its
//   parent's bucket, so what runs inside a script call counts as script);
// - `profileSummary(profile)`: a V8 CPU profile (CDP Profiler) reduced to the functions with the most self time.

/** Trace categories the breakdown needs. */
export const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink'];

const BUCKETS = {
  script: [
    'FunctionCall',
    'EvaluateScript',
    'EventDispatch',
    'TimerFire',
    'FireAnimationFrame',
    'FireIdleCallback',
    'RunMicrotasks',
    'v8.compile',
    'v8.compileModule',
    'v8.evaluateModule',
    'v8.run',
    'v8.callFunction',
    'V8.Execute',
    'CompileScript',
    'CompileCode',
    'ParseHTML',
  ],
  gc: [
    'MinorGC',
    'MajorGC',
    'V8.GC_SCAVENGER',
    'V8.GC_MARK_COMPACTOR',
    'BlinkGC.AtomicPhase',
    'ThreadState::performIdleLazySweep',
  ],
  style: ['UpdateLayoutTree', 'RecalculateStyles', 'ParseAuthorStyleSheet', 'ScheduleStyleRecalculation'],
  layout: [
    'Layout',
    'UpdateLayerTree',
    'HitTest',
    'InvalidateLayout',
    'IntersectionObserverController::computeIntersections',
  ],
  paint: [
    'PrePaint',
    'Paint',
    'PaintImage',
    'Layerize',
    'Commit',
    'CompositeLayers',
    'UpdateLayer',
    'PaintSetup',
  ],
};
const BUCKET_OF = new Map(
  Object.entries(BUCKETS).flatMap(([bucket, names]) => names.map((name) => [name, bucket])),
);

/** The renderer main thread with the most timed events: the page's (other renderers were idle). */
function pageMainThread(events) {
  const mains = new Set(
    events
      .filter(
        (event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain',
      )
      .map((event) => `${event.pid}:${event.tid}`),
  );
  const counts = new Map();
  for (const event of events) {
    const key = `${event.pid}:${event.tid}`;
    if (mains.has(key) && (event.ph === 'X' || event.ph === 'B')) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The thread's events as intervals `{name, start, end, time}` (time: thread time when the trace has it). */
function intervals(events, thread) {
  const result = [];
  const open = [];
  for (const event of events) {
    if (`${event.pid}:${event.tid}` !== thread) continue;
    if (event.ph === 'X' && typeof event.dur === 'number') {
      result.push({
        name: event.name,
        start: event.ts,
        end: event.ts + event.dur,
        time: event.tdur ?? event.dur,
      });
    } else if (event.ph === 'B') {
      open.push(event);
    } else if (event.ph === 'E') {
      const begin = open.pop();
      if (!begin) continue;
      const time =
        typeof event.tts === 'number' && typeof begin.tts === 'number'
          ? event.tts - begin.tts
          : event.ts - begin.ts;
      result.push({ name: begin.name, start: begin.ts, end: event.ts, time });
    }
  }
  // Parents before their children: earlier start first, the longer of two equal starts first.
  return result.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * Sums the self time of the page's main-thread events per bucket, in milliseconds, plus `totalMs` (the time of
 * the top-level tasks) and `topOther` (the unbucketed event names with the most self time, to extend the table).
 *
 * @param {{traceEvents: object[]} | object[]} trace a Chromium trace (Tracing / `browser.stopTracing()`)
 */
export function mainThreadBreakdown(trace) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const thread = pageMainThread(events);
  const buckets = { script: 0, gc: 0, style: 0, layout: 0, paint: 0, other: 0 };
  if (!thread) return { totalMs: 0, ...buckets, topOther: [] };
  const items = intervals(events, thread);
  const stack = [];
  let total = 0;
  for (const item of items) {
    while (stack.length && stack[stack.length - 1].end <= item.start) stack.pop();
    const parent = stack[stack.length - 1];
    item.bucket = BUCKET_OF.get(item.name) ?? parent?.bucket ?? 'other';
    item.self = item.time;
    if (parent) parent.self -= item.time;
    else total += item.time;
    stack.push(item);
  }
  // Self times are final once every child was subtracted.
  const otherNames = new Map();
  for (const item of items) {
    const self = Math.max(0, item.self);
    buckets[item.bucket] += self;
    if (item.bucket === 'other') otherNames.set(item.name, (otherNames.get(item.name) ?? 0) + self);
  }
  const ms = (micros) => Math.round(micros / 100) / 10;
  return {
    totalMs: ms(total),
    ...Object.fromEntries(Object.entries(buckets).map(([bucket, micros]) => [bucket, ms(micros)])),
    topOther: [...otherNames.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([name, micros]) => `${name} ${ms(micros)}`),
  };
}

/**
 * The functions with the most self time in a V8 CPU profile (`Profiler.stop()`), in milliseconds, with V8's
 * own entries such as `(garbage collector)` and `(program)`; names are the bundle's (minified) names.
 *
 * @param {{nodes: object[], samples: number[], timeDeltas: number[]}} profile
 * @param {number} [limit]
 */
export function profileSummary(profile, limit = 25) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  profile.samples.forEach((id, index) => {
    const node = nodes.get(id);
    if (!node) return;
    const frame = node.callFrame;
    const file = frame.url ? frame.url.slice(frame.url.lastIndexOf('/') + 1) : '';
    const key = `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, micros]) => ({ name, selfMs: Math.round(micros / 100) / 10 }));
}
