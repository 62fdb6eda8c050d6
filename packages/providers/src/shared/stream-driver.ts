import { HalError, type StreamPart } from '@hal-ai/spec';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  type ProviderCall,
  type ProviderResponse,
  retryDelayMs,
  sendProviderRequest,
} from './http-client.js';
import { defaultSleep, HTTP_DEFAULTS, type HttpProviderSettings } from './http-settings.js';
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

/** @internal How a part stream may send its call again after an early in-stream error. */
export interface StreamRetry {
  /** Retries left (shared with the HTTP-status retries of the first request). */
  remaining: number;
  open(maxRetries: number): Promise<ProviderResponse>;
  sleep(milliseconds: number): Promise<void>;
}

// Parts that carry no output: an error after only these has shown the consumer nothing, so a retry is invisible.
const PREAMBLE_PARTS = new Set<StreamPart['type']>(['stream-start', 'response-metadata']);

/**
 * @internal The part stream of an accepted response. Errors become one final `error` part; cancelling the stream
 * releases the connection. Each pull reads one body chunk and enqueues every part it yields at once: one await per
 * network chunk rather than per part keeps the adapter close to a raw client under load. An overload or rate-limit
 * error event that arrives before any output is retried like the HTTP status would be.
 */
export function createPartStream(
  provider: string,
  firstResponse: ProviderResponse,
  createMapper: () => StreamEventMapper,
  retry?: StreamRetry,
): ReadableStream<StreamPart> {
  let response = firstResponse;
  let mapper = createMapper();
  let chunks = response.chunks();
  let decoder = new TextDecoder();
  const events: EventSourceMessage[] = [];
  // An event still incomplete when the body ends is never dispatched (SSE rules), so a cut stream has no half event.
  let parser = createParser({ onEvent: (event) => events.push(event) });
  let finished = false;
  let outputSent = false;
  let streamRetries = 0;

  const restart = async (error: unknown): Promise<boolean> => {
    const retryable =
      HalError.isInstance(error) &&
      (error.code === 'provider_unavailable' || error.code === 'provider_rate_limited');
    if (!retry || outputSent || !retryable || retry.remaining <= 0 || finished) return false;
    response.release();
    void chunks.return(undefined).catch(() => undefined);
    retry.remaining -= 1;
    await retry.sleep(retryDelayMs(undefined, streamRetries));
    streamRetries += 1;
    response = await retry.open(retry.remaining);
    retry.remaining -= response.retriesUsed ?? 0;
    mapper = createMapper();
    chunks = response.chunks();
    decoder = new TextDecoder();
    events.length = 0;
    parser = createParser({ onEvent: (event) => events.push(event) });
    return true;
  };

  return new ReadableStream<StreamPart>(
    {
      start(controller) {
        controller.enqueue({ type: 'stream-start' });
      },
      async pull(controller) {
        const enqueue = (part: StreamPart) => {
          if (!PREAMBLE_PARTS.has(part.type)) outputSent = true;
          controller.enqueue(part);
        };
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
          if (error === undefined && mapper.done) {
            // The answer is complete but the body may not have ended yet (`data: [DONE]`, the chunked
            // terminator). Reading that last bit lets undici return the socket to its pool; destroying the
            // body instead aborts the request, closes the connection and builds an abort error every turn.
            void drainRest(response, chunks);
            return;
          }
          response.release();
          // Close the body iterator too: its `finally` clears the idle timer, which would otherwise keep the
          // process alive for a whole idle timeout after every answer that ends before the body does.
          void chunks.return(undefined).catch(() => undefined);
        };
        const failOrRetry = async (error: unknown): Promise<boolean> => {
          try {
            if (await restart(error)) return true;
          } catch (retryError) {
            finish(retryError);
            return false;
          }
          finish(error);
          return false;
        };
        while (!finished) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await chunks.next();
          } catch (error) {
            if (await failOrRetry(error)) continue;
            return;
          }
          try {
            if (next.done) {
              for (const part of mapper.onEnd()) enqueue(part);
              finish();
              return;
            }
            parser.feed(decoder.decode(next.value, { stream: true }));
            let enqueued = false;
            while (events.length > 0 && !mapper.done) {
              for (const part of mapper.onEvent(events.shift() as EventSourceMessage)) {
                enqueue(part);
                enqueued = true;
              }
            }
            if (mapper.done) {
              finish();
              return;
            }
            if (enqueued) return;
          } catch (error) {
            if (await failOrRetry(error)) continue;
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

/** Most a finished answer's body may still carry before its connection is given up instead of reused. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/** Longest wait for a finished answer's body to end. */
const DRAIN_LIMIT_MS = 1_000;

/**
 * Reads what is left of a body whose answer is complete, so its keep-alive connection is reused. A body that
 * carries more than {@link DRAIN_LIMIT_BYTES} or does not end within {@link DRAIN_LIMIT_MS} is released
 * (destroyed) instead. Never throws; the body iterator is always closed (its `finally` clears the idle timer).
 */
async function drainRest(response: ProviderResponse, chunks: AsyncGenerator<Uint8Array>): Promise<void> {
  const timer = setTimeout(() => response.release(), DRAIN_LIMIT_MS);
  timer.unref();
  let bytes = 0;
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      bytes += next.value.byteLength;
      if (bytes > DRAIN_LIMIT_BYTES) return;
    }
  } catch {
    // Released by the timer, or the connection broke: either way nothing is left to read.
  } finally {
    clearTimeout(timer);
    response.release();
    await chunks.return(undefined).catch(() => undefined);
  }
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
  createMapper: () => StreamEventMapper,
): Promise<{ stream: ReadableStream<StreamPart> }> {
  try {
    const response = await sendProviderRequest(call, settings);
    const sleep = settings.sleep ?? defaultSleep;
    const retry: StreamRetry = {
      remaining: (settings.maxRetries ?? HTTP_DEFAULTS.maxRetries) - (response.retriesUsed ?? 0),
      open: (maxRetries) => sendProviderRequest(call, { ...settings, maxRetries }),
      sleep: (milliseconds) => sleep(milliseconds, call.abortSignal),
    };
    return { stream: createPartStream(call.provider, response, createMapper, retry) };
  } catch (error) {
    return {
      stream: errorPartStream(
        HalError.isInstance(error) ? error : badResponse(call.provider, 'the request failed', error),
      ),
    };
  }
}
