import { HalError } from '@hal-ai/spec';
import type { Context, MiddlewareHandler } from 'hono';
import { isUnsafeMethod } from './csrf.js';
import type { AppEnv } from './env.js';

/**
 * The only routes that take `multipart/form-data`: the release upload of the console API and of the console form.
 * Every other route refuses a multipart body before reading it, and only these get the large upload cap.
 */
export const UPLOAD_ROUTES: ReadonlySet<string> = new Set(['/ops/api/hal/releases', '/ops/releases']);

/** Paths whose bodies are JSON only: the console API and the agents' API. */
const JSON_PREFIXES = ['/ops/api/', '/agent/api/'];

/** The media type of a `Content-Type` header, lowercased, without parameters (`''` when absent). */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

interface NodeBindings {
  incoming?: unknown;
}

/**
 * True when the request carries a body. Over HTTP/1.1 that is a transfer encoding or a non-zero length (a POST
 * with neither has none, though the Node adapter still gives it an empty stream); a request handed to `fetch`
 * directly (tests, other adapters) has a body when its stream is there.
 */
export function declaresBody(c: Context): boolean {
  if (c.req.header('transfer-encoding') !== undefined) return true;
  const length = c.req.header('content-length');
  if (length !== undefined) return length.trim() !== '0';
  const overNode = (c.env as NodeBindings | undefined)?.incoming !== undefined;
  return !overNode && c.req.raw.body !== null;
}

/** True for a POST to one of the {@link UPLOAD_ROUTES}. */
export function isUploadRoute(c: Context): boolean {
  return c.req.method === 'POST' && UPLOAD_ROUTES.has(c.req.path);
}

/** The media types a request to this path may carry (SPEC §13: JSON in; the console's forms; one upload). */
function acceptedTypes(c: Context): readonly string[] {
  if (JSON_PREFIXES.some((prefix) => c.req.path.startsWith(prefix))) return ['application/json'];
  // Console pages post urlencoded forms; `POST /ops/login` also takes JSON (SPEC §14 "Auth").
  return ['application/x-www-form-urlencoded', 'application/json'];
}

/**
 * Refuses, from the headers alone and before any byte of the body is read, a body of a type its route does not
 * take → `415 unsupported_media_type`: the console and agent APIs take only `application/json`, the console's
 * pages urlencoded forms (and JSON for the login); only the release upload takes `multipart/form-data` (its reader
 * refuses other types, `400 validation_failed`, and they never get the upload's size cap).
 * A request without a body (no length, or `0`) passes: many actions carry none.
 *
 * @example
 * app.use('*', bodyTypePolicy());
 */
export function bodyTypePolicy(): MiddlewareHandler<AppEnv> {
  return async function bodyTypePolicy(c, next) {
    if (!isUnsafeMethod(c.req.method) || !declaresBody(c)) return next();
    // The upload reader refuses anything but multipart itself, before reading and after the route's re-auth check
    // (a wrong type is not the first thing to tell an operator whose password window closed); the size cap for a
    // body that is not multipart stays the small one (body-limit.ts).
    if (isUploadRoute(c)) return next();
    const type = mediaTypeOf(c.req.header('content-type'));
    const accepted = acceptedTypes(c);
    if (!accepted.includes(type)) {
      // A console form post whose `_csrf` field is still unchecked is first of all a post without a valid token.
      if (c.get('csrfDeferred') === true) throw new HalError('csrf_failed', 'Missing or wrong CSRF token');
      throw new HalError(
        'unsupported_media_type',
        `This route takes ${accepted.join(' or ')} bodies, not ${type === '' ? 'an untyped body' : type}`,
        { details: { accepted: [...accepted] } },
      );
    }
    return next();
  };
}
