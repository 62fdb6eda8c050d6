import { randomBytes, randomUUID } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Operator } from '../../platform/http/env.js';
import {
  DEFAULT_SCRYPT_PARAMS,
  generatePassword,
  hashPassword,
  needsRehash,
  type ScryptParams,
  verifyAgainstDummy,
  verifyPassword,
} from './auth-password.js';

/** Edges of the operator functions. */
export interface OperatorSettings {
  db: Kysely<Database>;
  clock: { now(): number };
  random?: (bytes: number) => Buffer;
  /** scrypt cost of new hashes (default {@link DEFAULT_SCRYPT_PARAMS}); tests may lower it to stay fast. */
  passwordParams?: ScryptParams;
}

const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Validates a username (lowercase letters, digits, `.`, `_`, `-`; 1–64 characters). */
export function assertUsername(username: string): void {
  if (!USERNAME_PATTERN.test(username)) {
    throw new HalError(
      'validation_failed',
      'username must be 1-64 characters: lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  }
}

/** Counts operators (start-up creates `admin` when there are none). */
export async function countOperators(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('operators')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Creates an operator with a generated one-time password (or the given one) and returns both.
 * The password is returned once to be shown to a human; it is never stored or logged.
 */
export async function createOperator(
  settings: OperatorSettings,
  username: string,
  password?: string,
): Promise<{ operator: Operator; password: string }> {
  assertUsername(username);
  const random = settings.random ?? randomBytes;
  const secret = password ?? generatePassword(random);
  const now = new Date(settings.clock.now()).toISOString();
  const operator = { id: randomUUID(), username };
  const passwordHash = await hashPassword(secret, settings.passwordParams, random);
  const existing = await settings.db
    .selectFrom('operators')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirst();
  if (existing !== undefined) throw new HalError('conflict', `operator "${username}" already exists`);
  await settings.db
    .insertInto('operators')
    .values({
      id: operator.id,
      username,
      password_hash: passwordHash,
      created_at: now,
      password_changed_at: now,
    })
    .execute();
  return { operator, password: secret };
}

/**
 * Sets a new generated (or given) password and ends every session of the operator.
 * Throws `not_found` for an unknown username.
 */
export async function resetOperatorPassword(
  settings: OperatorSettings,
  username: string,
  password?: string,
): Promise<{ operator: Operator; password: string }> {
  const row = await settings.db
    .selectFrom('operators')
    .select(['id', 'username'])
    .where('username', '=', username)
    .executeTakeFirst();
  if (row === undefined) throw new HalError('not_found', `no operator "${username}"`);
  const secret = password ?? generatePassword(settings.random ?? randomBytes);
  const passwordHash = await hashPassword(secret, settings.passwordParams, settings.random ?? randomBytes);
  const now = new Date(settings.clock.now()).toISOString();
  await settings.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('operators')
      .set({ password_hash: passwordHash, password_changed_at: now })
      .where('id', '=', row.id)
      .execute();
    await trx.deleteFrom('sessions').where('operator_id', '=', row.id).execute();
  });
  return { operator: { id: row.id, username: row.username }, password: secret };
}

/** Options of {@link authenticateOperator}. */
export interface AuthenticateOptions {
  /**
   * The parameters hashes should have (default {@link DEFAULT_SCRYPT_PARAMS}). A correct password whose stored
   * hash was made with others is re-hashed with these, transparently, before the login answers.
   */
  passwordParams?: ScryptParams;
  random?: (bytes: number) => Buffer;
}

/**
 * Checks a username and password. Unknown usernames cost the same scrypt time as wrong
 * passwords; returns the operator or null. A hash made with older parameters is upgraded on success.
 */
export async function authenticateOperator(
  db: Kysely<Database>,
  username: string,
  password: string,
  options: AuthenticateOptions = {},
): Promise<Operator | null> {
  const row = await db
    .selectFrom('operators')
    .select(['id', 'username', 'password_hash'])
    .where('username', '=', username)
    .executeTakeFirst();
  if (row === undefined) return verifyAgainstDummy(password).then(() => null);
  if (!(await verifyPassword(password, row.password_hash))) return null;
  const params = options.passwordParams ?? DEFAULT_SCRYPT_PARAMS;
  if (needsRehash(row.password_hash, params)) {
    const upgraded = await hashPassword(password, params, options.random ?? randomBytes);
    // Only the hash just verified is replaced: a password reset in between wins.
    await db
      .updateTable('operators')
      .set({ password_hash: upgraded })
      .where('id', '=', row.id)
      .where('password_hash', '=', row.password_hash)
      .execute();
  }
  return { id: row.id, username: row.username };
}

/** Checks the password of a known operator id (re-authentication). */
export async function verifyOperatorPassword(
  db: Kysely<Database>,
  operatorId: string,
  password: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('operators')
    .select('password_hash')
    .where('id', '=', operatorId)
    .executeTakeFirst();
  if (row === undefined) return verifyAgainstDummy(password);
  return verifyPassword(password, row.password_hash);
}
