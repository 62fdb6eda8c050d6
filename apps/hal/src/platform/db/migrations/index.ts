import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as core from './0002-core.js';
import * as vault from './0003-vault.js';
import * as aiConnections from './0004-ai-connections.js';
import * as aiRooms from './0005-ai-rooms.js';
import * as loginCounters from './0006-login-counters.js';
import * as aiCliCheckMcpGrants from './0007-ai-cli-check-mcp-grants.js';
import * as aiActionTainted from './0008-ai-action-tainted.js';
import * as aiConnectionReasoning from './0009-ai-connection-reasoning.js';
import * as aiRoomDebateBudget from './0010-ai-room-debate-budget.js';
import * as aiDebates from './0011-ai-debates.js';
import * as revisions from './0013-revisions.js';
import * as instances from './0014-instances.js';

/**
 * Every migration, in order. A static provider (no directory scanning) so the bundled `hal`
 * binary carries its migrations. Each area of HAL adds its own file and one line here;
 * names sort lexically, so keep the numeric prefix.
 */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-core': core,
  '0003-vault': vault,
  '0004-ai-connections': aiConnections,
  '0005-ai-rooms': aiRooms,
  '0006-login-counters': loginCounters,
  '0007-ai-cli-check-mcp-grants': aiCliCheckMcpGrants,
  '0008-ai-action-tainted': aiActionTainted,
  '0009-ai-connection-reasoning': aiConnectionReasoning,
  '0010-ai-room-debate-budget': aiRoomDebateBudget,
  '0011-ai-debates': aiDebates,
  '0013-revisions': revisions,
  '0014-instances': instances,
};

/** The migration provider `hal db migrate` and start-up use. */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
