import { HalError, type StreamPart } from '@hal-ai/spec';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type ProviderCall, type ProviderResponse, sendProviderRequest } from './http-client.js';
import type { HttpProviderSettings } from './http-settings.js';
import { badResponse } from './provider-error.js';

/** @internal Turns one provider's SSE events into stream parts. Throw `HalError` to end the stream with an error. */
export interface StreamEventMapper {
  /** Parts for one event. */
  onEvent(event: EventSourceMessage): Iterable<StreamPart>;
  /** Parts once the body ended; throw when the final event never came (a cut stream). */
  onEnd(): Iterable<StreamPart>;
  /** True after the final event: reading stops. */
  readonly done: boolean;
}

/** @internal Parses one SSE `data` payload as JSON, or throws `provider_bad_response`. */
export function parseEventData(provider: string, event: EventSourceMessage): unknown {
  try {
    return JSON.parse(event.data);
  } catch (error) {
    throw badResponse(provider, `a stream event is not valid JSON (${event.data.slice(0, 80)})`, error);
  }
}

/**
 * @internal The part stream of an accepted response. Errors become one final `error` part; cancelling the stream
 * releases the connection. Each pull reads one body chunk and enqueues every part it yields at once: one await per
 * network chunk rather than per part keeps the adapter close to a raw client under load.
 */
export function createPartStream(
  provider: string,
  response: ProviderResponse,
  mapper: StreamEventMapper,
): ReadableStream<StreamPart> {
  const chunks = response.chunks();
  const decoder = new TextDecoder();
  const events: EventSourceMessage[] = [];
  // An event still incomplete when the body ends is never dispatched (SSE rules), so a cut stream has no half event.
  const parser = createParser({ onEvent: (event) => events.push(event) });
  let finished = false;

  return new ReadableStream<StreamPart>(
    {
      start(controller) {
        controller.enqueue({ type: 'stream-start' });
      },
      async pull(controller) {
        const finish = (error?: unknown) => {
          finished = true;
          if (error !== undefined) {
            controller.enqueue({
              type: 'error',
              error: HalError.isInstance(error)
                ? error
                : badResponse(provider, 'the stream could not be read', error),
            });
          }
          controller.close();
          response.release();
        };
        while (!finished) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await chunks.next();
          } catch (error) {
            finish(error);
            return;
          }
          try {
            if (next.done) {
              for (const part of mapper.onEnd()) controller.enqueue(part);
              finish();
              return;
            }
            parser.feed(decoder.decode(next.value, { stream: true }));
            let enqueued = false;
            while (events.length > 0 && !mapper.done) {
              for (const part of mapper.onEvent(events.shift() as EventSourceMessage)) {
                controller.enqueue(part);
                enqueued = true;
              }
            }
            if (mapper.done) {
              finish();
              return;
            }
            if (enqueued) return;
          } catch (error) {
            finish(error);
            return;
          }
        }
      },
      async cancel() {
        finished = true;
        response.release();
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** @internal A stream of exactly one `error` part (a request the provider never accepted). */
export function errorPartStream(error: HalError): ReadableStream<StreamPart> {
  return new ReadableStream<StreamPart>({
    start(controller) {
      controller.enqueue({ type: 'error', error });
      controller.close();
    },
  });
}

/** @internal Parses streamed tool arguments; empty means no arguments. */
export function parseToolInput(provider: string, toolName: string, text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badResponse(provider, `the arguments of tool call "${toolName}" are not valid JSON`, error);
  }
}

/**
 * @internal Sends a streaming call: an accepted response becomes a part stream, a refused one a stream with one
 * `error` part (so the consumer has one ending path).
 */
export async function streamProviderCall(
  call: ProviderCall,
  settings: HttpProviderSettings,
  mapper: StreamEventMapper,
): Promise<{ stream: ReadableStream<StreamPart> }> {
  try {
    const response = await sendProviderRequest(call, settings);
    return { stream: createPartStream(call.provider, response, mapper) };
  } catch (error) {
    return {
      stream: errorPartStream(
        HalError.isInstance(error) ? error : badResponse(call.provider, 'the request failed', error),
      ),
    };
  }
}
