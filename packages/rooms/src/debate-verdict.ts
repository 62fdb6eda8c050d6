/**
 * The moderator's verdict after each round (SPEC §9): JSON validated against a schema. A reply that is not a valid
 * verdict never advances the debate: the caller retries once, quoting {@link VerdictResult.error}, then waits for
 * the operator.
 */
import type { DebateVerdict } from '@hal-ai/spec';
import * as v from 'valibot';

const text = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(4000));

/** The verdict's schema: exactly the SPEC §9 fields (unknown keys refused), `question` required for `ask_user`. */
export const debateVerdictSchema = v.pipe(
  v.strictObject({
    decision: v.picklist(['continue', 'ask_user', 'conclude']),
    agreement_level: v.picklist(['disagree', 'partial', 'agree']),
    reason: text,
    agreed: v.pipe(v.array(text), v.maxLength(50)),
    disputed: v.pipe(v.array(text), v.maxLength(50)),
    question: v.optional(text),
  }),
  v.check(
    (verdict) => verdict.decision !== 'ask_user' || verdict.question !== undefined,
    'decision "ask_user" needs a "question" for the operator',
  ),
);

/** The outcome of {@link parseVerdict}. */
export type VerdictResult = { ok: true; verdict: DebateVerdict } | { ok: false; error: string };

/**
 * The JSON object of a moderator's reply: the reply itself, or the one fenced ```json block in it (models often
 * wrap JSON in a fence). Anything around a bare object is not accepted: the verdict must be the answer.
 */
function jsonOf(reply: string): string {
  const trimmed = reply.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(trimmed);
  return fenced?.[1] ?? trimmed;
}

/**
 * Parses and validates a verdict. The error names what was wrong (not JSON, which field, why), so the retry can
 * quote it to the moderator.
 *
 * @example
 * parseVerdict('{"decision":"continue","agreement_level":"partial","reason":"…","agreed":[],"disputed":["x"]}');
 */
export function parseVerdict(reply: string): VerdictResult {
  let value: unknown;
  try {
    value = JSON.parse(jsonOf(reply));
  } catch (error) {
    return { ok: false, error: `the reply is not JSON (${(error as Error).message})` };
  }
  const result = v.safeParse(debateVerdictSchema, value);
  if (!result.success) {
    const issues = result.issues.map((issue) => {
      const path = v.getDotPath(issue);
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    return { ok: false, error: issues.join('; ') };
  }
  const { question, ...rest } = result.output;
  return { ok: true, verdict: question !== undefined ? { ...rest, question } : rest };
}
