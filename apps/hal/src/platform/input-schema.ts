import { HalError } from '@hal-ai/spec';
import * as v from 'valibot';

/**
 * One field's failure as `validation_failed` reports it: `path` and `message` (SPEC §14, valibot's English, for
 * developers) plus valibot's machine fields, from which the console and the panel say the failure in the
 * operator's language (`@hal-ai/ui-panel/i18n`'s `issueText`).
 */
export interface InputIssue {
  /** The field's dot path (`oauth.clientId`), `''` for the whole input. */
  path: string;
  /** valibot's message (or the schema's own), English. */
  message: string;
  /** `schema` (wrong type, missing or unknown key), `validation` (a pipe's check) or `transformation`. */
  kind: string;
  /** The schema or check that failed: `string`, `min_length`, `regex`, `picklist`, `strict_object`, … */
  type: string;
  /** What was expected as valibot writes it (`>=1`, `string`, `("a" | "b")`), or `null`. */
  expected: string | null;
  /**
   * What was received (`0`, `undefined`, `number`), or `null`. A received string is left out (only the empty
   * string is kept): valibot quotes the very value typed, and that may be a secret in a wrong field.
   */
  received: string | null;
  /** The check's limit where it is a number (`minLength(1)` → `1`), else absent. */
  requirement?: number;
  /** What the failing value was (`typeof`, `array` and `null` told apart), so a length reads as characters or items. */
  inputType: string;
}

function inputTypeOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  return typeof input;
}

/** The machine fields of one valibot issue (see {@link InputIssue}). */
function describeIssue(issue: v.BaseIssue<unknown>): InputIssue {
  const received = issue.received === '""' || !issue.received.startsWith('"') ? issue.received : null;
  const described: InputIssue = {
    path: v.getDotPath(issue) ?? '',
    message: issue.message,
    kind: issue.kind,
    type: issue.type,
    expected: issue.expected,
    received,
    inputType: inputTypeOf(issue.input),
  };
  if (typeof issue.requirement === 'number' && Number.isFinite(issue.requirement)) {
    described.requirement = issue.requirement;
  }
  return described;
}

/**
 * Validates `input` against a valibot `schema`; failures become `400 validation_failed` with
 * `issues: [{path, message, kind, type, expected, received, requirement?, inputType}]` naming each field
 * (SPEC §12, §14). The one input check of the host: the core's operations, the AI tools' arguments and the
 * routes' JSON bodies (`readJsonInput`) all go through it.
 *
 * @example
 * const input = parseInput(v.strictObject({ name: v.string() }), body);
 */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const parsed = v.safeParse(schema, input);
  if (parsed.success) return parsed.output;
  const issues = parsed.issues.map(describeIssue);
  const first = issues[0];
  throw new HalError(
    'validation_failed',
    first ? `${first.path || 'input'}: ${first.message}` : 'Invalid input',
    {
      details: { issues },
    },
  );
}
