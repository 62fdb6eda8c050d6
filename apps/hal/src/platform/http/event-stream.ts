import type { Context } from 'hono';

/**
 * One SSE frame. `data` must be a single line (JSON from `JSON.stringify` is), `event` and `id` must not contain
 * line breaks.
 */
export function sseFrame(event: string, id: string, data: string): string {
  return `event: ${event}\ndata: ${data}\nid: ${id}\n\n`;
}

/** Options of {@link eventStream}. */
export interface EventStreamOptions {
  /** Interval of the comment heartbeat that keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** Ends the stream when aborted (HAL stopping: clients reconnect with `Last-Event-ID`). */
  closing?: AbortSignal;
  /**
   * Writes (each a batch of frames) a client may fall behind by before its stream is ended; it reconnects and
   * resumes, or catches up. A stalled reader must not make HAL buffer without bound. Default 10 000.
   */
  maxBacklog?: number;
  /**
   * Shortest time between two writes, in ms (default 0: once per event-loop turn). A frame after a quiet spell
   * still goes out at once; frames arriving faster (a model's tokens) are gathered until the interval has passed,
   * which saves a socket write per token without delaying the first one.
   */
  minIntervalMs?: number;
  /**
   * Starts the feed: call `push` with whole frames (synchronously is fine); returns what stops it. `urgent`
   * frames are not held back by `minIntervalMs` (they go out at the end of this event-loop turn, with whatever is
   * pending).
   */
  open(push: (frame: string, urgent?: boolean) => void): () => void;
}

/**
 * A `text/event-stream` response that writes frames in batches: every frame pushed during one turn of the event
 * loop (a provider's network chunk often carries several deltas; a post publishes a turn and a message at once)
 * goes out as ONE chunk and one socket write, at the end of that turn (`setImmediate`), and with `minIntervalMs`
 * a fast run of frames is gathered further. Under load this removes most of the per-frame cost; when idle it
 * delays a frame by well under a millisecond. It is a plain `ReadableStream`
 * body: @hono/node-server cancels it when the client goes away, which stops the feed.
 *
 * @example
 * return eventStream(c, { heartbeatMs: 15_000, open: (push) => hub.subscribe(id, (e) => push(sseFrame(...))) });
 */
export function eventStream(c: Context, options: EventStreamOptions): Response {
  const encoder = new TextEncoder();
  const maxBacklog = options.maxBacklog ?? 10_000;
  const minIntervalMs = options.minIntervalMs ?? 0;
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let delayed: NodeJS.Timeout | undefined;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let stop: (() => void) | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let ended = false;

  const cleanup = () => {
    if (ended) return;
    ended = true;
    if (scheduled) clearImmediate(scheduled);
    clearTimeout(delayed);
    clearInterval(heartbeat);
    options.closing?.removeEventListener('abort', close);
    pending = [];
    stop?.();
  };
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    clearTimeout(delayed);
    scheduled = undefined;
    delayed = undefined;
    if (ended || !controller || pending.length === 0) return;
    lastWriteAt = performance.now();
    const text = pending.length === 1 ? (pending[0] as string) : pending.join('');
    pending = [];
    controller.enqueue(encoder.encode(text));
    // desiredSize counts queued chunks the socket has not taken yet.
    if ((controller.desiredSize ?? 0) < -maxBacklog) close();
  };
  function close() {
    if (ended) return;
    flush();
    const current = controller;
    cleanup();
    try {
      current?.close();
    } catch {
      // Already cancelled by the client.
    }
  }
  const push = (frame: string, urgent = false) => {
    if (ended) return;
    pending.push(frame);
    if (scheduled) return;
    if (urgent && delayed) {
      clearTimeout(delayed);
      delayed = undefined;
    }
    if (delayed) return;
    const wait = urgent ? 0 : lastWriteAt + minIntervalMs - performance.now();
    if (wait > 0) delayed = setTimeout(flush, wait);
    else scheduled = setImmediate(flush);
  };

  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      if (options.closing?.aborted) {
        close();
        return;
      }
      options.closing?.addEventListener('abort', close);
      stop = options.open(push);
      heartbeat = setInterval(() => push(': heartbeat\n\n'), options.heartbeatMs);
    },
    cancel: cleanup,
  });
  return c.body(body, 200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    // Tells @hono/node-server to send the headers at once instead of waiting for a first chunk.
    'Transfer-Encoding': 'chunked',
    'X-Accel-Buffering': 'no',
  });
}
