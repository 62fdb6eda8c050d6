import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { HalConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { clientAddress } from './client-address.js';
import type { AppEnv } from './env.js';

/** What {@link accessLog} uses. */
export interface AccessLogDeps {
  logger: Logger;
  config: Pick<HalConfig, 'trustProxy'>;
  /** Randomness for request ids. Default `crypto.randomBytes`. */
  random?: (bytes: number) => Buffer;
}

/** The response header (and, from a trusted proxy, the request header) carrying the request id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id a trusted proxy may hand in (nginx's `$request_id` is 32 hex digits). */
const FORWARDED_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * One access-log line per request: `request` at info (warn for 5xx) with `requestId`, `method`, `path` (never the
 * query string: an OAuth callback carries its code and state there), `status`, `durationMs`, `operatorId` (null
 * before sign-in) and the client address (`HAL_TRUST_PROXY` decides which). Never a header, a cookie or a body.
 * The id is also the `X-Request-Id` response header, so an operator can quote it; behind a trusted proxy an
 * incoming `X-Request-Id` is kept, so the proxy's log and HAL's share one id. Streams (SSE) are logged when
 * their response starts.
 */
export function accessLog(deps: AccessLogDeps): MiddlewareHandler<AppEnv> {
  const random = deps.random ?? randomBytes;
  return async function accessLogMiddleware(c, next) {
    const started = performance.now();
    const forwarded = deps.config.trustProxy ? c.req.header(REQUEST_ID_HEADER) : undefined;
    const requestId =
      forwarded !== undefined && FORWARDED_ID.test(forwarded) ? forwarded : random(8).toString('hex');
    c.set('requestId', requestId);
    try {
      await next();
    } finally {
      c.res.headers.set(REQUEST_ID_HEADER, requestId);
      const status = c.res.status;
      const line = {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        operatorId: c.get('operator')?.id ?? null,
        client: clientAddress(c, deps.config.trustProxy),
      };
      if (status >= 500) deps.logger.warn(line, 'request');
      else deps.logger.info(line, 'request');
    }
  };
}
