import type { Dispatcher } from 'undici';

/** Settings every HTTP provider takes. */
export interface HttpProviderSettings {
  /** Overrides the provider's base URL (proxies, gateways, tests). */
  baseUrl?: string;
  /** Extra headers sent with every request (never logged). */
  headers?: Record<string, string | undefined>;
  /**
   * The undici dispatcher (agent, proxy, mock); default undici's global dispatcher. A host hands every provider the
   * one `createProxyDispatcher` built from its environment, so `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` hold.
   */
  dispatcher?: Dispatcher;
  /** Give up when the response headers take longer than this. Default 60 000 ms. */
  firstByteTimeoutMs?: number;
  /** Give up when the body goes silent for longer than this between chunks. Default 60 000 ms. */
  idleTimeoutMs?: number;
  /** Retries of 429 and 5xx/529 answers before any output. Default 2. */
  maxRetries?: number;
  /** How retries wait; injectable so tests need not sleep. Default a timer that an abort cancels. */
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** The clock that dates in `Retry-After` are measured against. Default `Date.now`. */
  now?: () => number;
  /**
   * Turns a request body into the JSON text sent. Default `JSON.stringify`. It must give the text
   * `JSON.stringify` gives; a host may hand in one that reuses the encoding of parts that repeat from call to
   * call (the library itself keeps no cache of bodies).
   */
  encodeBody?: (body: unknown) => string;
}

/** @internal Defaults applied to {@link HttpProviderSettings}. */
export const HTTP_DEFAULTS = {
  firstByteTimeoutMs: 60_000,
  idleTimeoutMs: 60_000,
  maxRetries: 2,
  maxRetryAfterS: 10,
} as const;

/** @internal A sleep that an abort signal ends early. */
export function defaultSleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** @internal Joins a base URL and a path without doubling or dropping slashes. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** @internal Drops headers whose value is `undefined`. */
export function definedHeaders(...sources: Array<Record<string, string | undefined> | undefined>) {
  const result: Record<string, string> = {};
  for (const source of sources) {
    for (const [name, value] of Object.entries(source ?? {})) {
      if (value !== undefined) result[name.toLowerCase()] = value;
    }
  }
  return result;
}
