import { randomBytes } from 'node:crypto';
import type { CallConversation } from '@hal-ai/spec';
import type { Kysely } from 'kysely';
import type { Clock } from '../../domain/core/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { sha256Hex } from '../../platform/platform-hash.js';

/** The environment that tells an attached `hal mcp` which conversation it serves, and proves it. */
export const HAL_MCP_GRANT_ENV = {
  token: 'HAL_MCP_GRANT',
  room: 'HAL_MCP_ROOM',
  connection: 'HAL_MCP_CONNECTION',
  turn: 'HAL_MCP_TURN',
} as const;

/** A conversation an attached `hal mcp` may act in (the turn may be unknown). */
export interface McpGrantedConversation {
  roomId: string;
  connectionId: string;
  turnId: string | null;
}

/**
 * Grants of the MCP server HAL attaches to a local CLI run. A grant binds a random token to one room, connection and
 * turn; `hal serve` issues it before the run and deletes it when the run ends (at the latest it expires). The token
 * travels in the MCP server's environment; the database keeps only its SHA-256. Without a live grant that matches
 * what it claims, a `hal mcp` process cannot post as a connection: an outside MCP client's proposals stay in the
 * unified room, attributed to no connection.
 */
export interface McpGrants {
  /** A grant for one run; `release` deletes it. */
  issue(conversation: CallConversation, ttlMs?: number): Promise<{ token: string; release(): Promise<void> }>;
  /** The conversation when `token` is live and was issued for exactly the claimed room, connection and turn. */
  verify(token: string, claimed: McpGrantedConversation): Promise<McpGrantedConversation | undefined>;
}

/** Longest a grant lives when its run never reports back: the CLI's own default timeout (5 min) and a margin. */
export const MCP_GRANT_TTL_MS = 6 * 60_000;

/**
 * Creates the grants over the `ai_mcp_grants` table.
 *
 * @example
 * const grants = createMcpGrants(db, clock);
 * const { token, release } = await grants.issue({ roomId, turnId, connectionId });
 */
export function createMcpGrants(
  db: Kysely<Database>,
  clock: Clock,
  random: (size: number) => Buffer = randomBytes,
): McpGrants {
  return {
    async issue(conversation, ttlMs = MCP_GRANT_TTL_MS) {
      const token = random(32).toString('base64url');
      const tokenHash = sha256Hex(token);
      const now = clock.now();
      // Expired grants of runs that never reported back go first.
      await db.deleteFrom('ai_mcp_grants').where('expires_at', '<', now).execute();
      await db
        .insertInto('ai_mcp_grants')
        .values({
          token_hash: tokenHash,
          room_id: conversation.roomId,
          connection_id: conversation.connectionId,
          turn_id: conversation.turnId,
          expires_at: now + ttlMs,
          created_at: new Date(now).toISOString(),
        })
        .execute();
      return {
        token,
        release: async () => {
          await db.deleteFrom('ai_mcp_grants').where('token_hash', '=', tokenHash).execute();
        },
      };
    },
    async verify(token, claimed) {
      if (!token) return undefined;
      const row = await db
        .selectFrom('ai_mcp_grants')
        .selectAll()
        .where('token_hash', '=', sha256Hex(token))
        .executeTakeFirst();
      if (!row || row.expires_at < clock.now()) return undefined;
      if (
        row.room_id !== claimed.roomId ||
        row.connection_id !== claimed.connectionId ||
        (row.turn_id ?? null) !== (claimed.turnId ?? null)
      ) {
        return undefined;
      }
      return { roomId: row.room_id, connectionId: row.connection_id, turnId: row.turn_id };
    },
  };
}
