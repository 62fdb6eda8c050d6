import { HalError } from '@hal-ai/spec';
import * as v from 'valibot';

/**
 * Validates `input` against a valibot `schema`; failures become `400 validation_failed` with
 * `issues: [{path, message}]` naming each field (SPEC §12). The one input check of the host: the core's
 * operations, the AI tools' arguments and the routes' JSON bodies (`readJsonInput`) all go through it.
 *
 * @example
 * const input = parseInput(v.strictObject({ name: v.string() }), body);
 */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const parsed = v.safeParse(schema, input);
  if (parsed.success) return parsed.output;
  const issues = parsed.issues.map((issue) => ({ path: v.getDotPath(issue) ?? '', message: issue.message }));
  const first = issues[0];
  throw new HalError(
    'validation_failed',
    first ? `${first.path || 'input'}: ${first.message}` : 'Invalid input',
    {
      details: { issues },
    },
  );
}
