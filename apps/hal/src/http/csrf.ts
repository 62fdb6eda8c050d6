import { createHash, timingSafeEqual } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
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

/**
 * CSRF protection for everything behind the session middleware: on POST/PUT/PATCH/DELETE the
 * origin must be our own and `X-CSRF-Token` (or, for form posts, the `_csrf` field) must equal
 * the session's token → else `403 csrf_failed`.
 */
export function csrfProtection(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async function csrfProtection(c, next) {
    if (!isUnsafeMethod(c.req.method)) return next();
    assertSameOrigin(c, deps.config.trustProxy);
    const expected = c.get('csrfToken');
    let presented = c.req.header(CSRF_HEADER);
    if (presented === undefined && isFormContentType(c.req.header('content-type'))) {
      // Hono caches the parsed body, so the route can still read it afterwards.
      const field = (await c.req.parseBody())[CSRF_FIELD];
      presented = typeof field === 'string' ? field : undefined;
    }
    if (typeof expected !== 'string' || presented === undefined || !safeEqual(presented, expected)) {
      throw new HalError('csrf_failed', 'Missing or wrong CSRF token');
    }
    await next();
  };
}
