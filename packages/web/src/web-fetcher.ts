import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { HalError } from '@hal-ai/spec';
import { Agent, type Dispatcher } from 'undici';
import type { WebCache } from './web-cache.js';
import { createGuardedConnector, type WebDial, type WebResolver } from './web-connector.js';
import { decodeBody } from './web-decode.js';
import { extractHtml } from './web-extract.js';
import { capText, type WebPage } from './web-page.js';
import { DEFAULT_WEB_PORTS, normaliseWebUrl } from './web-url.js';

/** Settings of {@link createWebFetcher}. Every edge has a real default. */
export interface WebFetcherSettings {
  /** The resolver the guard asks, once per connection (default: the system resolver). */
  resolve?: WebResolver;
  /** Opens the socket to the checked address (default: undici's connector). See {@link WebDial}. */
  dial?: WebDial;
  /** `HAL_WEB_ALLOW_PRIVATE=1`: loopback and private ranges may be fetched (never the metadata address). */
  allowPrivate?: boolean;
  /** Ports a URL may name (default 80 and 443). */
  allowedPorts?: readonly number[];
  /** The whole fetch, redirects and body included (default 15 s). */
  timeoutMs?: number;
  /** Most bytes of a body after decompression (default 2 MB). */
  maxBodyBytes?: number;
  /** Most redirects followed, each re-checked (default 3). */
  maxRedirects?: number;
  /** Most characters of text a page keeps (default 20,000). */
  maxChars?: number;
  /** Successful pages by normalised URL; the host owns it (none by default: every call fetches). */
  cache?: WebCache;
  /** The current time (default `new Date()`). */
  clock?: () => Date;
  /** The `user-agent` header. */
  userAgent?: string;
}

/** The one fetcher both web paths use: linked pages and the `web_fetch` tool. */
export interface WebFetcher {
  /**
   * Fetches a page and returns its readable text.
   *
   * @throws HalError `web_blocked`, `web_timeout`, `web_too_large`, `web_unsupported_type` or `web_fetch_failed`.
   */
  fetchPage(url: string): Promise<WebPage>;
  /** Closes the fetcher's connections. */
  close(): Promise<void>;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'application/json']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function kindOf(type: string): 'html' | 'text' | null {
  if (HTML_TYPES.has(type)) return 'html';
  if (TEXT_TYPES.has(type) || /^application\/[a-z0-9.+-]+\+json$/.test(type)) return 'text';
  return null;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The decoders for a `content-encoding` list, outermost last (the order the server applied them). */
function decoders(encoding: string | undefined): Array<NodeJS.ReadWriteStream> {
  const codings = (encoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  return codings.reverse().map((coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
    if (coding === 'deflate') return zlib.createInflate();
    if (coding === 'br') return zlib.createBrotliDecompress();
    throw new HalError('web_unsupported_type', `Content encoding ${coding} is not supported`);
  });
}

/**
 * Reads a body through its decoders, counting bytes AFTER decompression: a small gzip that inflates past the cap
 * (a gzip bomb) stops at the cap, and nothing more is inflated.
 */
async function readCapped(body: Readable, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const chain = decoders(encoding);
  let stream: NodeJS.ReadableStream = body;
  for (const decoder of chain) stream = stream.pipe(decoder);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        throw new HalError('web_too_large', `The page is larger than ${Math.round(maxBytes / 1024)} KB`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (HalError.isInstance(error)) throw error;
    if (body.errored || (error as { name?: string }).name === 'AbortError') throw error;
    throw new HalError('web_fetch_failed', 'The page could not be decompressed', { cause: error });
  } finally {
    discard(body);
    for (const decoder of chain) (decoder as unknown as { destroy(): void }).destroy();
  }
  return Buffer.concat(chunks);
}

/** Drops a body HAL will not read (destroying it makes undici emit an abort error nobody needs). */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

function toWebError(error: unknown, signal: AbortSignal, timeoutMs: number): HalError {
  if (HalError.isInstance(error)) return error;
  const cause = (error as { cause?: unknown })?.cause;
  if (HalError.isInstance(cause)) return cause;
  if (signal.aborted)
    return new HalError('web_timeout', `The page did not load within ${timeoutMs / 1000} s`);
  return new HalError('web_fetch_failed', 'The page could not be fetched', { cause: error });
}

/**
 * Creates the web fetcher (SPEC §10): GET only, no cookies or credentials, http/https on ports 80/443, at most 3
 * redirects each re-checked, 15 s for everything, a 2 MB body cap after decompression, readable text from HTML
 * (readability over linkedom), plain text and JSON as text, everything else refused, the charset from the header,
 * BOM or `<meta>`, and 20,000 characters with `truncated`. Every connection goes through the guard of
 * {@link createGuardedConnector}; there is no other path to the network.
 *
 * @example
 * const fetcher = createWebFetcher({ cache: createWebCache() });
 * const page = await fetcher.fetchPage('https://example.com/notes'); // {title, text, truncated, finalUrl, …}
 */
export function createWebFetcher(settings: WebFetcherSettings = {}): WebFetcher {
  const timeoutMs = settings.timeoutMs ?? 15_000;
  const maxBodyBytes = settings.maxBodyBytes ?? 2 * 1024 * 1024;
  const maxRedirects = settings.maxRedirects ?? 3;
  const maxChars = settings.maxChars ?? 20_000;
  const allowedPorts = settings.allowedPorts ?? DEFAULT_WEB_PORTS;
  const clock = settings.clock ?? (() => new Date());
  const userAgent = settings.userAgent ?? 'HAL-AI-web-fetch/0.1 (+operator console)';
  const dispatcher: Dispatcher = new Agent({
    connect: createGuardedConnector({
      ...(settings.resolve ? { resolve: settings.resolve } : {}),
      ...(settings.dial ? { dial: settings.dial } : {}),
      allowPrivate: settings.allowPrivate === true,
      allowedPorts,
    }),
    // The fetch's own timer bounds everything; these only keep undici from waiting longer than that.
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  const load = async (start: URL, signal: AbortSignal): Promise<WebPage> => {
    let url = start;
    for (let redirects = 0; ; redirects += 1) {
      const response = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        signal,
        headers: {
          accept: 'text/html, application/xhtml+xml, text/plain, application/json;q=0.9, */*;q=0.1',
          'accept-encoding': 'gzip, deflate, br',
          'user-agent': userAgent,
        },
      });
      const { statusCode, headers, body } = response;
      if (REDIRECTS.has(statusCode)) {
        discard(body);
        const location = header(headers, 'location');
        if (!location) throw new HalError('web_fetch_failed', `HTTP ${statusCode} without a location`);
        if (redirects >= maxRedirects) {
          throw new HalError('web_fetch_failed', `More than ${maxRedirects} redirects`);
        }
        // The next hop passes the same URL rules; its address is checked again where its socket connects.
        url = normaliseWebUrl(new URL(location, url).href, { allowedPorts });
        continue;
      }
      if (statusCode < 200 || statusCode > 299) {
        discard(body);
        throw new HalError('web_fetch_failed', `The server answered HTTP ${statusCode}`);
      }
      const contentType = header(headers, 'content-type');
      const type = mediaType(contentType);
      const kind = kindOf(type);
      if (!kind) {
        discard(body);
        throw new HalError(
          'web_unsupported_type',
          `HAL reads web pages, plain text and JSON, not ${type || 'an untyped body'}`,
        );
      }
      const length = Number(header(headers, 'content-length'));
      if (!header(headers, 'content-encoding') && Number.isFinite(length) && length > maxBodyBytes) {
        discard(body);
        throw new HalError('web_too_large', `The page is larger than ${Math.round(maxBodyBytes / 1024)} KB`);
      }
      const bytes = await readCapped(body, header(headers, 'content-encoding'), maxBodyBytes);
      const decoded = decodeBody(bytes, { ...(contentType ? { contentType } : {}), html: kind === 'html' });
      const extracted =
        kind === 'html'
          ? extractHtml(decoded, url.href)
          : { title: '', text: decoded.replace(/\r\n?/g, '\n').trim() };
      const capped = capText(extracted.text, maxChars);
      return {
        url: start.href,
        finalUrl: url.href,
        contentType: type,
        title: extracted.title,
        text: capped.text,
        truncated: capped.truncated,
        fetchedAt: clock().toISOString(),
      };
    }
  };

  return {
    async fetchPage(input) {
      const url = normaliseWebUrl(input, { allowedPorts });
      const cached = settings.cache?.get(url.href);
      if (cached) return cached;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        const page = await load(url, controller.signal);
        settings.cache?.set(url.href, page);
        return page;
      } catch (error) {
        throw toWebError(error, controller.signal, timeoutMs);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await dispatcher.close();
    },
  };
}
