import { HalError } from '@hal-ai/spec';
import type { MiddlewareHandler } from 'hono';
import { isUploadRoute, mediaTypeOf } from './body-type.js';

function tooLarge(maxBytes: number): never {
  throw new HalError('payload_too_large', `The request body is larger than ${maxBytes} bytes`, {
    details: { maxBytes },
  });
}

/**
 * Caps a route's request body at `maxBytes` → `413 payload_too_large`. Use it on a route that
 * needs a cap other than the app default.
 *
 * @example
 * routes.post('/releases', limitBody(config.uploadLimitBytes), handler);
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return async function limitBody(c, next) {
    const method = c.req.method;
    // No route reads a GET or HEAD body.
    if (method === 'GET' || method === 'HEAD') return next();
    // A declared length is enough: Node's parser never reads past it. Checking it here, without touching the
    // body, keeps @hono/node-server's direct read of small bodies (hono's middleware would first build a web
    // Request around the Node stream for every request, a large share of a short POST's cost).
    const declared = c.req.header('content-length');
    if (
      declared !== undefined &&
      /^\d{1,15}$/.test(declared) &&
      c.req.header('transfer-encoding') === undefined
    ) {
      if (Number(declared) > maxBytes) tooLarge(maxBytes);
      return next();
    }
    // Chunked or undeclared: count as it streams. Never collect it (hono's own bodyLimit does, which would
    // hold a whole chunked upload in memory): the reader fails with `payload_too_large` at the first byte over.
    const body = c.req.raw.body;
    if (body === null) return next();
    let size = 0;
    const reader = body.getReader();
    // Pull-based with no buffer of its own (high-water mark 0): nothing is read before the route reads it.
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          size += value.byteLength;
          if (size > maxBytes) {
            controller.error(
              new HalError('payload_too_large', `The request body is larger than ${maxBytes} bytes`, {
                details: { maxBytes },
              }),
            );
            await reader.cancel().catch(() => {});
            return;
          }
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    c.req.raw = new Request(c.req.raw, { body: counted, duplex: 'half' } as RequestInit);
    return next();
  };
}

/**
 * The app-wide default: `bodyBytes` (1 MB) for every body, except a `multipart/form-data` post to one of the
 * release upload routes ({@link UPLOAD_ROUTES}), which may carry `uploadBytes`. A route can tighten either with
 * {@link limitBody}; a global middleware cannot see the route it is about to run, so raising the JSON cap means
 * raising the default here.
 */
export function defaultBodyLimit(bodyBytes: number, uploadBytes: number): MiddlewareHandler {
  const small = limitBody(bodyBytes);
  const large = limitBody(uploadBytes);
  return async function defaultBodyLimit(c, next) {
    const upload = isUploadRoute(c) && mediaTypeOf(c.req.header('content-type')) === 'multipart/form-data';
    return upload ? large(c, next) : small(c, next);
  };
}
