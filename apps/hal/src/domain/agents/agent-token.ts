import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashToken } from '../core/core-servers.js';

/**
 * Finds the server a presented agent token belongs to, or `null`/`undefined`. HAL stores only `hashAgentToken(token)`
 * (the servers table's `agent_token_hash`), so an implementation looks the hash up; it should answer `null`
 * for servers that may not act (isolated, deleted).
 */
export type ResolveAgentToken = (
  token: string,
) => Promise<string | null | undefined> | string | null | undefined;

/** What a well-formed token looks like (base64url); anything else is refused before any lookup. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

/**
 * A new agent token: 32 random bytes, base64url. Shown to the operator once; HAL keeps only its hash.
 *
 * @example
 * const token = createAgentToken();
 * await db.updateTable('servers').set({ agent_token_hash: hashAgentToken(token) }).where('id', '=', id).execute();
 */
export function createAgentToken(random: (size: number) => Buffer = randomBytes): string {
  return random(32).toString('base64url');
}

/** The SHA-256 (lower-case hex) under which a token is stored. A 256-bit random token needs no slow KDF. */
export function hashAgentToken(token: string): string {
  return hashToken(token);
}

/** True when `token` is well-formed and hashes to `tokenHash`; compares the hashes in constant time. */
export function verifyAgentToken(token: string, tokenHash: string): boolean {
  if (!TOKEN_PATTERN.test(token) || !/^[a-f0-9]{64}$/.test(tokenHash)) return false;
  return timingSafeEqual(Buffer.from(hashAgentToken(token), 'hex'), Buffer.from(tokenHash, 'hex'));
}

/** True when `token` has the shape of an agent token (cheap pre-check before a database lookup). */
export function isAgentTokenShaped(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/**
 * A resolver over a fixed list of `{serverId, tokenHash}` — for tests and small set-ups. It checks every
 * entry with a constant-time comparison and no early exit, so the answer time does not depend on which
 * entry matched.
 */
export function createStaticAgentTokenResolver(
  entries: Iterable<{ serverId: string; tokenHash: string }>,
): ResolveAgentToken {
  const list = [...entries];
  return (token) => {
    let found: string | null = null;
    for (const entry of list) {
      if (verifyAgentToken(token, entry.tokenHash) && found === null) found = entry.serverId;
    }
    return found;
  };
}
