import { HalError } from '@hal-ai/spec';
import { request } from 'undici';
import { defaultSleep, HTTP_DEFAULTS, type HttpProviderSettings } from './http-settings.js';
import {
  badResponse,
  httpError,
  isRetryableStatus,
  parseRetryAfter,
  secretsOf,
  transportError,
} from './provider-error.js';

/** @internal One HTTP call of an adapter. */
export interface ProviderCall {
  provider: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
  abortSignal?: AbortSignal;
  /** Header values to keep out of error messages. */
  secrets: readonly string[];
}

/** @internal A call whose error messages leave out every credential among its headers. */
export function createProviderCall(call: Omit<ProviderCall, 'secrets'>): ProviderCall {
  return { ...call, secrets: secretsOf(call.headers) };
}

/** @internal GETs a JSON document (a model list) with the provider's timeouts and retries. */
export async function getProviderJson(
  provider: string,
  url: string,
  headers: Record<string, string>,
  settings: HttpProviderSettings,
  abortSignal: AbortSignal | undefined,
): Promise<unknown> {
  const call = createProviderCall({ provider, url, method: 'GET', headers, abortSignal });
  return (await sendProviderRequest(call, settings)).json();
}

/**
 * @internal Reads a cursor-paginated list to its end. A page cap guards against a server that always answers that
 * there is more.
 */
export async function collectPages<T>(
  readPage: (cursor: string | undefined) => Promise<{ items: T[]; next?: string }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const { items: pageItems, next } = await readPage(cursor);
    items.push(...pageItems);
    if (!next) break;
    cursor = next;
  }
  return items;
}

/** @internal An accepted (2xx) response whose body is read with the idle timeout. */
export interface ProviderResponse {
  headers: Record<string, string | string[] | undefined>;
  /** The body chunks; throws `HalError` on idle timeout, abort or a cut connection. */
  chunks(): AsyncGenerator<Uint8Array>;
  /** The whole body parsed as JSON; malformed JSON is `provider_bad_response`. */
  json(): Promise<unknown>;
  /** Stops reading and releases the socket. */
  release(): void;
  /** How many retries it took to get this response. */
  retriesUsed?: number;
}

function interrupted(provider: string): HalError {
  return new HalError('interrupted', `${provider}: the call was cancelled`, { details: { provider } });
}

/**
 * @internal Sends a call with timeouts and retries. 429 and 5xx/529 are retried at most `maxRetries` times, waiting
 * `Retry-After` when it is at most 10 s (a longer one is not worth holding the turn for: the error carries it),
 * otherwise a short backoff. Everything here happens before any output reached a consumer.
 */
export async function sendProviderRequest(
  call: ProviderCall,
  settings: HttpProviderSettings,
): Promise<ProviderResponse> {
  const maxRetries = settings.maxRetries ?? HTTP_DEFAULTS.maxRetries;
  const sleep = settings.sleep ?? defaultSleep;
  const now = settings.now ?? Date.now;
  for (let attempt = 0; ; attempt += 1) {
    if (call.abortSignal?.aborted) throw interrupted(call.provider);
    const response = await openOnce(call, settings);
    if (response.status < 400) return Object.assign(response, { retriesUsed: attempt });
    const bodyText = await readText(response).catch(() => '');
    const retryAfterS = parseRetryAfter(response.headers, now());
    const error = httpError(call.provider, response.status, bodyText, call.secrets, retryAfterS);
    const canRetry =
      isRetryableStatus(response.status) &&
      attempt < maxRetries &&
      (retryAfterS === undefined || retryAfterS <= HTTP_DEFAULTS.maxRetryAfterS);
    if (!canRetry) throw error;
    await sleep(retryDelayMs(retryAfterS, attempt), call.abortSignal);
  }
}

/** @internal The wait before retry number `attempt` (0-based): `Retry-After` if given, else a short backoff. */
export function retryDelayMs(retryAfterS: number | undefined, attempt: number): number {
  return retryAfterS !== undefined ? retryAfterS * 1000 : 250 * 2 ** attempt;
}

async function readText(response: Pick<ProviderResponse, 'chunks'>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.chunks()) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

async function openOnce(
  call: ProviderCall,
  settings: HttpProviderSettings,
): Promise<ProviderResponse & { status: number }> {
  const firstByteTimeoutMs = settings.firstByteTimeoutMs ?? HTTP_DEFAULTS.firstByteTimeoutMs;
  const idleTimeoutMs = settings.idleTimeoutMs ?? HTTP_DEFAULTS.idleTimeoutMs;
  const encodeBody = settings.encodeBody ?? JSON.stringify;
  const controller = new AbortController();
  let failure: HalError | undefined;
  const fail = (error: HalError) => {
    failure ??= error;
    controller.abort(error);
  };
  const onAbort = () => fail(interrupted(call.provider));
  call.abortSignal?.addEventListener('abort', onAbort, { once: true });
  const detach = () => call.abortSignal?.removeEventListener('abort', onAbort);

  const firstByteTimer = setTimeout(
    () =>
      fail(
        new HalError('provider_timeout', `${call.provider} sent nothing within ${firstByteTimeoutMs} ms`, {
          details: { provider: call.provider, timeoutMs: firstByteTimeoutMs },
        }),
      ),
    firstByteTimeoutMs,
  );
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(call.url, {
      method: call.method,
      headers:
        call.body === undefined ? call.headers : { 'content-type': 'application/json', ...call.headers },
      // Text, not a `Buffer`: the socket encodes a string into memory it reuses, where a fresh body-sized `Buffer`
      // per request is new memory for the kernel to map and the garbage collector to find.
      body: call.body === undefined ? undefined : encodeBody(call.body),
      signal: controller.signal,
      dispatcher: settings.dispatcher,
      // Our own timers decide first; undici's are only a backstop.
      headersTimeout: firstByteTimeoutMs + 5_000,
      bodyTimeout: idleTimeoutMs + 5_000,
    });
  } catch (error) {
    detach();
    throw failure ?? transportError(call.provider, error, 'connect', call.secrets);
  } finally {
    clearTimeout(firstByteTimer);
  }

  const body = response.body;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    detach();
    // Destroying the body aborts the request and frees the socket at once.
    if (!body.destroyed) body.destroy();
  };

  async function* chunks(): AsyncGenerator<Uint8Array> {
    // One timer per response that re-arms itself from the last chunk's time: resetting a timer on every chunk
    // costs more than the chunk itself under load.
    let lastChunkAt = Date.now();
    let idleTimer: NodeJS.Timeout | undefined;
    const check = () => {
      const silentFor = Date.now() - lastChunkAt;
      if (silentFor < idleTimeoutMs) {
        idleTimer = setTimeout(check, idleTimeoutMs - silentFor);
        return;
      }
      fail(
        new HalError(
          'provider_timeout',
          `${call.provider} went silent for ${idleTimeoutMs} ms mid-response`,
          {
            details: { provider: call.provider, timeoutMs: idleTimeoutMs },
          },
        ),
      );
    };
    try {
      idleTimer = setTimeout(check, idleTimeoutMs);
      for await (const chunk of body) {
        lastChunkAt = Date.now();
        yield chunk as Uint8Array;
      }
      if (failure) throw failure;
    } catch (error) {
      throw failure ?? transportError(call.provider, error, 'body', call.secrets);
    } finally {
      clearTimeout(idleTimer);
      release();
    }
  }

  return {
    status: response.statusCode,
    headers: response.headers,
    chunks,
    release,
    async json() {
      const text = await readText({ chunks });
      try {
        return JSON.parse(text);
      } catch (error) {
        throw badResponse(call.provider, 'the response body is not valid JSON', error);
      }
    },
  };
}
