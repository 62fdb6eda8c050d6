// Server-sent events for the benchmark's clients and its floor: a body split into frames by hand, and a frame read
// into its event name and data. One copy for run.mjs, postgres-bench.mjs and floor-proxy.mjs, so every path the
// bench compares pays the same parsing.

/**
 * Calls `onFrame(frame)` for every frame of an SSE body (the text between blank lines, without them), in order, as
 * its bytes arrive; resolves when the body ends and rejects when reading it fails (e.g. aborted).
 *
 * @param {AsyncIterable<Uint8Array>} body
 * @param {(frame: string) => void} onFrame
 */
export async function forEachSseFrame(body, onFrame) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      onFrame(frame);
    }
  }
}

/**
 * A frame's `event` (default `message`) and its `data` lines joined; `data` is '' for a comment (a heartbeat).
 *
 * @param {string} frame
 * @returns {{ event: string, data: string }}
 */
export function parseSseFrame(frame) {
  let event = 'message';
  let data = '';
  for (const line of frame.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data += line.slice(5).trimStart();
  }
  return { event, data };
}
