import { HAL_ERROR_STATUS, HalError, type HalErrorCode } from '@hal-ai/spec';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../logger.js';

const statusCodes: Record<number, HalErrorCode> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
};

/**
 * Turns anything thrown into the public error body. HalErrors keep their code, message and
 * details; Hono's HTTPExceptions (e.g. its JSON validator's "Malformed JSON") and JSON parse
 * errors from `c.req.json()` become `validation_failed`; everything else is a bare 500
 * `internal_error` — never a message or a stack trace, which may carry internals.
 */
export function toHalError(error: unknown): HalError {
  if (HalError.isInstance(error)) return error;
  if (error instanceof HTTPException) {
    const code = statusCodes[error.status] ?? 'internal_error';
    const message = code === 'validation_failed' ? 'The request body is not valid' : defaultMessage(code);
    return new HalError(code, message, {
      cause: error,
      status: code === 'internal_error' ? 500 : error.status,
    });
  }
  if (error instanceof SyntaxError && /JSON/i.test(error.message)) {
    return new HalError('validation_failed', 'The request body is not valid JSON', { cause: error });
  }
  return new HalError('internal_error', 'Internal error', { cause: error });
}

function defaultMessage(code: HalErrorCode): string {
  switch (code) {
    case 'not_found':
      return 'Not found';
    case 'payload_too_large':
      return 'The request body is too large';
    case 'unauthenticated':
      return 'Sign in first';
    default:
      return 'Internal error';
  }
}

/** Writes a HalError as `{error: {code, message, ...details}}` (plus `Retry-After` for rate limits). */
export function errorResponse(c: Context, error: HalError): Response {
  const retryAfter = error.details.retryAfterS;
  if (error.code === 'rate_limited' && typeof retryAfter === 'number')
    c.header('Retry-After', String(retryAfter));
  const status = (
    HAL_ERROR_STATUS[error.code] === null && error.statusOverride === undefined ? 500 : error.status
  ) as ContentfulStatusCode;
  return c.json(error.toJSON(), status);
}

/** The `app.onError` handler: map, log 5xx with the cause (server-side only), answer. */
export function createErrorHandler(logger: Logger) {
  return function onError(error: unknown, c: Context): Response {
    const halError = toHalError(error);
    if (halError.status >= 500) {
      logger.error({ err: error, method: c.req.method, path: c.req.path }, 'request failed');
    }
    return errorResponse(c, halError);
  };
}
