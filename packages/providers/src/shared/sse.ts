import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * @internal Server-sent events from body chunks. An event still incomplete when the body ends is dropped, as the
 * SSE standard says, so a cut stream never yields a half event.
 */
export async function* readSseEvents(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const decoder = new TextDecoder();
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  for await (const chunk of chunks) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift() as EventSourceMessage;
  }
}
