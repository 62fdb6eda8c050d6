// Test support: reads the SSE frames of a fetch response as they arrive.

/** One SSE frame as read. */
export interface Frame {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
}

/** Reads SSE frames from a fetch response as they arrive. */
export function frameReader(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const frames: Frame[] = [];
  const parse = (block: string): Frame => {
    const frame: Frame = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frame.comment = line.slice(1).trim();
      const match = /^(event|id|data): ?(.*)$/.exec(line);
      if (match) frame[match[1] as 'event' | 'id' | 'data'] = match[2];
    }
    return frame;
  };
  return {
    frames,
    /** Reads until `done(frames)` holds. */
    async until(done: (frames: Frame[]) => boolean): Promise<Frame[]> {
      while (!done(frames)) {
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error(`stream ended after ${frames.length} frames`);
        buffer += decoder.decode(value, { stream: true });
        let index = buffer.indexOf('\n\n');
        while (index >= 0) {
          frames.push(parse(buffer.slice(0, index)));
          buffer = buffer.slice(index + 2);
          index = buffer.indexOf('\n\n');
        }
      }
      return frames;
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}
