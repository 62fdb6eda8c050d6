import { HalError } from '@hal-ai/spec';
import type { Context } from 'hono';
import type * as v from 'valibot';
import { parseInput } from '../input-schema.js';

/**
 * Reads a request body that must be a JSON object; an empty body counts as `{}`. Anything else is
 * `400 validation_failed` with one issue at the root.
 *
 * @example
 * const body = await readJsonObject(c);
 */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HalError('validation_failed', 'The body is not valid JSON', {
      details: { issues: [{ path: '', message: 'invalid JSON' }] },
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HalError('validation_failed', 'The body must be a JSON object', {
      details: { issues: [{ path: '', message: 'expected an object' }] },
    });
  }
  return value as Record<string, unknown>;
}

/**
 * Reads a JSON object body ({@link readJsonObject}) and validates it against `schema` (`parseInput`): every route
 * that takes a JSON body answers a bad one the same way, `400 validation_failed` with `issues`. A body past the
 * size limit stays `413 payload_too_large`.
 *
 * @example
 * const { password } = await readJsonInput(c, v.object({ password: v.string() }));
 */
export async function readJsonInput<S extends v.GenericSchema>(
  c: Context,
  schema: S,
): Promise<v.InferOutput<S>> {
  return parseInput(schema, await readJsonObject(c));
}
