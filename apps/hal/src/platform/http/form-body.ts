import { HalError } from '@hal-ai/spec';
import type { Context } from 'hono';
import { CSRF_FIELD, verifyFormToken } from './csrf.js';
import type { AppEnv } from './env.js';

/** True for a form post: urlencoded or multipart. */
export function isFormPost(c: Context): boolean {
  const type = c.req.header('content-type')?.toLowerCase() ?? '';
  return type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data');
}

/**
 * Reads a console form post's text fields (`application/x-www-form-urlencoded`, capped by the app's 1 MB
 * body limit) and completes the deferred CSRF check with its `_csrf` field before returning anything.
 * A multipart post is refused here (`csrf_failed` while its token is unchecked, else `validation_failed`):
 * the only multipart form, the release upload, streams through its own reader.
 *
 * @example
 * const fields = await readFormFields(c);
 */
export async function readFormFields(c: Context<AppEnv>): Promise<Record<string, string>> {
  const type = c.req.header('content-type')?.toLowerCase() ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    verifyFormToken(c, undefined);
    throw new HalError('validation_failed', 'Submit this action with the console form');
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(await c.req.text())) fields[key] = value;
  verifyFormToken(c, fields[CSRF_FIELD]);
  return fields;
}
