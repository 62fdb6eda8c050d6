import { HalError } from '@hal-ai/spec';

/** A `fetch` replacement, e.g. to route through a proxy or to observe calls in tests. */
export type OAuthFetch = (url: string, init: RequestInit) => Promise<Response>;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** @internal True for `http(s)://127.0.0.1`, `localhost` and `[::1]`. */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * @internal Parses an endpoint and enforces HTTPS. Plain HTTP is accepted only when the caller asked
 * for it (`allowInsecureRequests`) *and* the host is loopback — a test fake, never a real server.
 */
export function checkEndpoint(name: string, value: string, allowInsecureRequests = false): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new HalError('validation_failed', `${name} is not a valid URL`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && allowInsecureRequests && isLoopbackUrl(url)) return url;
  throw new HalError(
    'validation_failed',
    url.protocol === 'http:'
      ? `${name} must use HTTPS (plain HTTP is allowed only for loopback test servers)`
      : `${name} must be an HTTPS URL`,
  );
}
