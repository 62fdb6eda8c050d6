import { HalError } from '@hal-ai/spec';
import type { Context } from 'hono';
import * as v from 'valibot';
import type { HalConfig } from '../../platform/config.js';
import { clientAddress } from '../../platform/http/client-address.js';
import type { AppEnv } from '../../platform/http/env.js';
import { type SessionDeps, sessionStoreFor, setSessionCookie } from '../../platform/http/session.js';
import { parseInput } from '../../platform/input-schema.js';
import type { AuditLog } from '../audit/types.js';
import { verifyOperatorPassword } from './auth-operators.js';
import { createLoginRateLimiter } from './auth-rate-limit.js';

/** Longest username/password accepted (scrypt of a huge input is a cheap denial of service). */
const MAX_CREDENTIAL_LENGTH = 1024;

/** A username or password: a non-empty string of at most 1024 characters. */
export const credentialSchema = v.pipe(
  v.string('required'),
  v.minLength(1, 'required'),
  v.maxLength(MAX_CREDENTIAL_LENGTH, `at most ${MAX_CREDENTIAL_LENGTH} characters`),
);

/** A username or password from a body, else `validation_failed` with the field in `issues`. */
export function readCredential(value: unknown, name: string): string {
  return parseInput(v.object({ [name]: credentialSchema }), { [name]: value })[name] as string;
}

/** What a re-authentication uses: the session store's services, the audit log and where the client is. */
export interface ReauthenticateDeps extends SessionDeps {
  audit: Pick<AuditLog, 'append'>;
  config: Pick<HalConfig, 'reauthWindowS' | 'trustProxy'>;
}

/**
 * The one re-authentication (SPEC §1 `requireRecent`), for `POST /ops/api/reauth` and the console's re-auth form
 * alike: the password is checked under the login rate limit (a wrong one → `401 invalid_credentials`, audited
 * `auth.reauth_failed`), then the session is replaced — a new cookie, a fresh 10-minute window, set on this
 * request too so the action it guards runs at once — and `auth.reauth` is audited.
 *
 * @example
 * const { recentAuthUntil } = await reauthenticate(c, deps, body.password);
 */
export async function reauthenticate(
  c: Context<AppEnv>,
  deps: ReauthenticateDeps,
  password: unknown,
): Promise<{ recentAuthUntil: number }> {
  const operator = c.get('operator');
  const checked = readCredential(password, 'password');
  const address = clientAddress(c, deps.config.trustProxy);
  const limiter = createLoginRateLimiter({ db: deps.db, clock: deps.clock });
  const attempt = await limiter.attempt(operator.username, address);
  if (!(await verifyOperatorPassword(deps.db, operator.id, checked))) {
    await deps.audit.append({
      actor: `operator:${operator.id}`,
      action: 'auth.reauth_failed',
      target: `operator:${operator.id}`,
      details: { address },
    });
    throw new HalError('invalid_credentials', 'Wrong password');
  }
  await attempt.succeeded();
  const session = await sessionStoreFor(deps).reauthenticate(c.get('sessionId'));
  if (session === null) throw new HalError('unauthenticated', 'Sign in first');
  setSessionCookie(c, deps, session.token, session.expiresAt);
  c.set('sessionId', session.id);
  c.set('recentAuthUntil', session.recentAuthUntil);
  await deps.audit.append({
    actor: `operator:${operator.id}`,
    action: 'auth.reauth',
    target: `operator:${operator.id}`,
  });
  return { recentAuthUntil: session.recentAuthUntil };
}
