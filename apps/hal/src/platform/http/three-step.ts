import { randomBytes } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import { canonicalJson } from '@hal-ai/tools';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { sha256Hex } from '../platform-hash.js';

/** How long a confirm token stays valid. */
export const CONFIRM_TOKEN_TTL_MS = 5 * 60 * 1000;

/** The confirmation fields of a final request, as received (unvalidated). */
export interface ThreeStepConfirmation {
  confirmToken?: unknown;
  confirmImpact?: unknown;
  confirmIdentifiers?: unknown;
  confirmExecute?: unknown;
}

/** What a high-risk action asks {@link ThreeStep.check} to confirm. */
export interface ThreeStepInput {
  operatorId: string;
  /** e.g. `server.delete`, `ai.action.approve`. */
  action: string;
  /** e.g. `server:<id>`. */
  target: string;
  /** What will happen, shown to the operator in step 1. */
  impact: unknown;
  /** What the operator must retype exactly, in this order, in step 2. */
  identifiers: string[];
  confirmation: ThreeStepConfirmation;
}

/**
 * The three confirmations of a high-risk action (SPEC §14 "Three steps"). `check` returns only
 * when the request carries a valid token and all three confirmations, consuming the token;
 * otherwise it throws `409 three_step_required` (with `impact`, `identifiers` and a fresh
 * `confirmToken`) or `400 identifiers_mismatch`.
 */
export interface ThreeStep {
  check(input: ThreeStepInput): Promise<void>;
}

/** Settings of {@link createThreeStep}. */
export interface ThreeStepSettings {
  db: Kysely<Database>;
  clock: { now(): number };
  random?: (bytes: number) => Buffer;
}

/** Picks the confirmation fields out of a request body (anything else is ignored). */
export function readConfirmation(body: unknown): ThreeStepConfirmation {
  if (body === null || typeof body !== 'object') return {};
  const record = body as Record<string, unknown>;
  return {
    confirmToken: record.confirmToken,
    confirmImpact: record.confirmImpact,
    confirmIdentifiers: record.confirmIdentifiers,
    confirmExecute: record.confirmExecute,
  };
}

/**
 * Creates the threeStep helper over the `confirm_tokens` table (a table, not memory, so several
 * HAL instances can share tokens). Tokens are stored hashed and bound to operator, action,
 * target and the exact impact/identifiers shown: if the impact changed since the token was
 * issued, the operator is shown the new one.
 *
 * @example
 * await deps.threeStep.check({ operatorId, action: 'server.delete', target: `server:${id}`,
 *   impact: { server: name }, identifiers: [name], confirmation: readConfirmation(body) });
 */
export function createThreeStep(settings: ThreeStepSettings): ThreeStep {
  const { db, clock } = settings;
  const random = settings.random ?? randomBytes;

  async function requireSteps(input: ThreeStepInput, subjectHash: string, message: string): Promise<never> {
    const token = random(32).toString('base64url');
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      // Expired tokens are useless; dropping them here keeps the table small without a timer.
      await trx.deleteFrom('confirm_tokens').where('expires_at', '<=', now).execute();
      await trx
        .insertInto('confirm_tokens')
        .values({
          token_hash: sha256Hex(token),
          operator_id: input.operatorId,
          action: input.action,
          target: input.target,
          subject_hash: subjectHash,
          created_at: new Date(now).toISOString(),
          expires_at: now + CONFIRM_TOKEN_TTL_MS,
          used_at: null,
        })
        .execute();
    });
    throw new HalError('three_step_required', message, {
      details: { impact: input.impact, identifiers: input.identifiers, confirmToken: token },
    });
  }

  return {
    async check(input) {
      const { confirmToken, confirmImpact, confirmIdentifiers, confirmExecute } = input.confirmation;
      const subjectHash = sha256Hex(
        canonicalJson({ impact: input.impact ?? null, identifiers: input.identifiers }),
      );
      if (typeof confirmToken !== 'string' || confirmToken.length === 0 || confirmToken.length > 256) {
        return requireSteps(
          input,
          subjectHash,
          'Confirm the impact, retype the identifiers and confirm execution',
        );
      }
      const tokenHash = sha256Hex(confirmToken);
      const now = clock.now();
      const row = await db
        .selectFrom('confirm_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      const valid =
        row !== undefined &&
        row.used_at === null &&
        row.expires_at > now &&
        row.operator_id === input.operatorId &&
        row.action === input.action &&
        row.target === input.target &&
        row.subject_hash === subjectHash;
      if (!valid) {
        return requireSteps(
          input,
          subjectHash,
          'The confirmation expired, was used, or belongs to another request',
        );
      }
      if (confirmImpact !== true || confirmExecute !== true || !Array.isArray(confirmIdentifiers)) {
        return requireSteps(
          input,
          subjectHash,
          'All three confirmations are required: impact, identifiers, execute',
        );
      }
      const matches =
        confirmIdentifiers.length === input.identifiers.length &&
        input.identifiers.every((expected, index) => confirmIdentifiers[index] === expected);
      if (!matches) {
        // The token stays usable so the operator can retype without starting over.
        throw new HalError('identifiers_mismatch', 'The retyped identifiers do not match', {
          details: { confirmToken },
        });
      }
      // Single use even under races: only one request can flip used_at from null.
      const consumed = await db
        .updateTable('confirm_tokens')
        .set({ used_at: new Date(now).toISOString() })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(consumed.numUpdatedRows) !== 1) {
        return requireSteps(input, subjectHash, 'The confirmation was already used');
      }
    },
  };
}
