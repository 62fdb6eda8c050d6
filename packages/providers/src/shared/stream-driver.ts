import { HalError, type StreamPart } from '@hal-ai/spec';
import type { EventSourceMessage } from 'eventsource-parser';
import { type ProviderCall, type ProviderResponse, sendProviderRequest } from './http-client.js';
import type { HttpProviderSettings } from './http-settings.js';
import { badResponse } from './provider-error.js';
import { readSseEvents } from './sse.js';

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
 * releases the connection.
 */
export function createPartStream(
  provider: string,
  response: ProviderResponse,
  mapper: StreamEventMapper,
): ReadableStream<StreamPart> {
  async function* parts(): AsyncGenerator<StreamPart> {
    yield { type: 'stream-start' };
    try {
      for await (const event of readSseEvents(response.chunks())) {
        yield* mapper.onEvent(event);
        if (mapper.done) break;
      }
      yield* mapper.onEnd();
    } catch (error) {
      yield {
        type: 'error',
        error: HalError.isInstance(error)
          ? error
          : badResponse(provider, 'the stream could not be read', error),
      };
    } finally {
      response.release();
    }
  }
  return partsToStream(parts(), () => response.release());
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

function partsToStream(
  iterator: AsyncGenerator<StreamPart>,
  release: () => void,
): ReadableStream<StreamPart> {
  return new ReadableStream<StreamPart>(
    {
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        // Release first: a pending read then ends at once and the generator can finish.
        release();
        await iterator.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
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
