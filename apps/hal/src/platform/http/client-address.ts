import type { Context } from 'hono';

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
}

/**
 * The client's address for rate limiting: the socket peer, or with `trustProxy` the last hop
 * written by the proxy into `X-Forwarded-For` (the first hop is client-controlled).
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for');
    const last = forwarded?.split(',').pop()?.trim();
    if (last) return last;
  }
  const bindings = c.env as NodeBindings | undefined;
  return bindings?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/** True when the request reached HAL (or, with `trustProxy`, the proxy) over https. */
export function isHttps(c: Context, trustProxy: boolean): boolean {
  if (trustProxy && c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https')
    return true;
  return new URL(c.req.url).protocol === 'https:';
}

/** The origin the browser sees for this request (scheme from the proxy when trusted). */
export function requestOrigin(c: Context, trustProxy: boolean): string {
  const url = new URL(c.req.url);
  return `${isHttps(c, trustProxy) ? 'https:' : url.protocol}//${url.host}`;
}
