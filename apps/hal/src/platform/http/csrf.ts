import { createHash, timingSafeEqual } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import type { Context, MiddlewareHandler } from 'hono';
import type { HalConfig } from '../config.js';
import { requestOrigin } from './client-address.js';
import type { AppEnv } from './env.js';

/** The header every state-changing request carries. */
export const CSRF_HEADER = 'X-CSRF-Token';
/** The hidden form field server-rendered forms (no JavaScript) carry instead. */
export const CSRF_FIELD = '_csrf';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True for methods that may change state. */
export function isUnsafeMethod(method: string): boolean {
  return UNSAFE_METHODS.has(method.toUpperCase());
}

/** Constant-time string equality (both sides hashed first, so lengths leak nothing either). */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

/**
 * Refuses a request from another site: an `Origin` header that is not this request's own origin,
 * or `Sec-Fetch-Site: cross-site`. Requests without either (curl, old browsers) pass this check;
 * the token check is what guards them.
 */
export function assertSameOrigin(c: Context, trustProxy: boolean): void {
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== requestOrigin(c, trustProxy)) {
    throw new HalError('csrf_failed', 'Cross-origin request refused');
  }
  if (c.req.header('sec-fetch-site')?.toLowerCase() === 'cross-site') {
    throw new HalError('csrf_failed', 'Cross-site request refused');
  }
}

function isFormContentType(type: string | undefined): boolean {
  const value = type?.toLowerCase() ?? '';
  return value.startsWith('application/x-www-form-urlencoded') || value.startsWith('multipart/form-data');
}

/** The JSON console API: its callers always send the header (SPEC §13), so no form fallback exists there. */
const API_PREFIX = '/ops/api/';

/**
 * CSRF protection for everything behind the session middleware: on POST/PUT/PATCH/DELETE the origin must be
 * our own and the token must equal the session's → else `403 csrf_failed`.
 *
 * The middleware never reads a body (a release upload streams up to `HAL_UPLOAD_LIMIT_BYTES`; parsing it here
 * would hold it in memory). It checks `X-CSRF-Token`. A console page's form post (no JavaScript, so no
 * header) carries the token as the `_csrf` field instead — the first field of every form the console renders;
 * for those the middleware marks the check as deferred and the form readers (`verifyFormToken`, called by
 * the page form reader and by the streaming upload before its file part) compare it before anything else is
 * used. Under `/ops/api/` the header is required: those routes never read form fields.
 */
export function csrfProtection(deps: { config: Pick<HalConfig, 'trustProxy'> }): MiddlewareHandler<AppEnv> {
  return async function csrfProtection(c, next) {
    c.set('csrfDeferred', false);
    if (!isUnsafeMethod(c.req.method)) return next();
    assertSameOrigin(c, deps.config.trustProxy);
    const expected = c.get('csrfToken');
    if (typeof expected !== 'string') throw new HalError('csrf_failed', 'Missing or wrong CSRF token');
    const presented = c.req.header(CSRF_HEADER);
    if (presented === undefined && !c.req.path.startsWith(API_PREFIX)) {
      if (isFormContentType(c.req.header('content-type'))) {
        c.set('csrfDeferred', true);
        return next();
      }
    }
    if (presented === undefined || !safeEqual(presented, expected)) {
      throw new HalError('csrf_failed', 'Missing or wrong CSRF token');
    }
    await next();
  };
}

/**
 * Completes a deferred CSRF check with the `_csrf` field of a console form (see {@link csrfProtection}):
 * a no-op when the header already passed, else `403 csrf_failed` unless `presented` is the session's token.
 * Every handler of a console form post calls it before it uses any field.
 *
 * @example
 * verifyFormToken(c, fields[CSRF_FIELD]);
 */
export function verifyFormToken(c: Context<AppEnv>, presented: string | undefined): void {
  // `false` only once the middleware checked the header; a route it never guarded gets no free pass.
  if (c.get('csrfDeferred') === false) return;
  const expected = c.get('csrfToken');
  if (typeof expected !== 'string' || presented === undefined || !safeEqual(presented, expected)) {
    throw new HalError('csrf_failed', 'Missing or wrong CSRF token');
  }
  c.set('csrfDeferred', false);
}
