import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

/** Who did something: an operator, a model connection, an MCP client, or HAL itself. */
export type AuditActor = `operator:${string}` | `ai:${string}` | `mcp:${string}` | 'system';

/** What to record. `details` passes through the redaction hook before it is stored. */
export interface AuditInput {
  actor: AuditActor;
  /** Dotted action name, e.g. `server.approve`, `ai.action.execute`. */
  action: string;
  /** What it acted on, e.g. `server:<id>`. */
  target?: string | null;
  /** Before/after or other structured detail (redacted before storage). */
  details?: unknown;
}

/** A stored, hash-chained audit entry. */
export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  details: unknown;
  prevHash: string;
  hash: string;
}

/** The append-only audit log. Pass `trx` to write the entry in the caller's transaction. */
export interface AuditLog {
  append(input: AuditInput, trx?: Transaction<Database> | Kysely<Database>): Promise<AuditEntry>;
  list(options?: { limit?: number; cursor?: string; actionPrefix?: string }): Promise<{
    entries: AuditEntry[];
    nextCursor: string | null;
  }>;
}
