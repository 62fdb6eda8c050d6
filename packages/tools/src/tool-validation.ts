import * as v from 'valibot';
import type { Tool } from './tool-definition.js';
import { FORBIDDEN_KEYS, toStrictSchema } from './tool-strict-schema.js';

/** One problem with a call's arguments: a dotted path (`server.name`, `tags.0`; `''` = the whole input) and a readable message. */
export type ValidationIssue = { path: string; message: string };

/** The outcome of {@link validateArgs}: the parsed value (defaults applied), or every issue found. */
export type ValidateResult = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

/** Inputs nested deeper than this are refused before any schema runs (no stack exhaustion). */
const MAX_DEPTH = 64;

/** A lone surrogate: a string that is not well-formed UTF-16 (no UTF-8 spelling; stored, it would change). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

// Own keys only (`Object.keys` also sees a `__proto__` that `JSON.parse` created as an own key).
function findForbiddenKeys(
  input: unknown,
  path: string,
  depth: number,
  issues: ValidationIssue[],
  seen: Set<object>,
): void {
  if (typeof input === 'string') {
    if (LONE_SURROGATE.test(input))
      issues.push({ path, message: 'Not well-formed Unicode (a lone surrogate)' });
    return;
  }
  if (typeof input !== 'object' || input === null) return;
  if (depth > MAX_DEPTH) {
    issues.push({ path, message: `Nested deeper than ${MAX_DEPTH} levels` });
    return;
  }
  if (seen.has(input)) {
    issues.push({ path, message: 'Circular reference' });
    return;
  }
  seen.add(input);
  for (const key of Object.keys(input)) {
    if (FORBIDDEN_KEYS.has(key)) {
      issues.push({ path: join(path, key), message: `Forbidden key "${key}"` });
      continue;
    }
    if (LONE_SURROGATE.test(key)) {
      issues.push({ path, message: 'A key is not well-formed Unicode (a lone surrogate)' });
      continue;
    }
    findForbiddenKeys((input as Record<string, unknown>)[key], join(path, key), depth + 1, issues, seen);
  }
  seen.delete(input);
}

function describe(issue: v.BaseIssue<unknown>): string {
  const objectLike =
    issue.type === 'object' || issue.type === 'strict_object' || issue.type === 'object_with_rest';
  if (objectLike && issue.kind === 'schema' && issue.expected === 'never') return 'Unknown argument';
  if (objectLike && issue.kind === 'schema' && issue.received === 'undefined' && issue.path !== undefined) {
    return 'Required';
  }
  if (issue.type === 'strict_tuple' && issue.expected === 'never') return 'Too many items';
  return issue.message;
}

/**
 * Re-validates a call's arguments against the tool's declared schema, strictly: unknown keys at
 * any depth, missing required keys, wrong types, enum members, lengths and ranges are all reported
 * (not just the first); keys that could pollute prototypes (`__proto__`, `constructor`,
 * `prototype`) are refused at any depth, also when `JSON.parse` produced them, and so are strings and keys that
 * are not well-formed UTF-16 (a lone surrogate has no UTF-8 spelling: stored or sent on, it would silently
 * become U+FFFD). Never throws.
 *
 * @example
 * const result = validateArgs(tool, JSON.parse(call.arguments));
 * if (!result.ok) return { error: { code: 'validation_failed', issues: result.issues } };
 */
export function validateArgs(tool: Pick<Tool<unknown>, 'args'>, input: unknown): ValidateResult {
  try {
    const forbidden: ValidationIssue[] = [];
    findForbiddenKeys(input, '', 0, forbidden, new Set());
    if (forbidden.length > 0) return { ok: false, issues: forbidden };
    const result = v.safeParse(toStrictSchema(tool.args), input, { abortEarly: false });
    if (result.success) return { ok: true, value: result.output };
    return {
      ok: false,
      issues: result.issues.map((issue) => ({ path: v.getDotPath(issue) ?? '', message: describe(issue) })),
    };
  } catch (error) {
    // A throwing custom check (the schema author's bug) or a hostile getter/proxy in the input:
    // the call is refused, not crashed.
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      issues: [{ path: '', message: `Arguments could not be validated: ${reason.slice(0, 200)}` }],
    };
  }
}
