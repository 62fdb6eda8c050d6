import type { AiConnectionTables } from './tables/ai-connections.js';
import type { AiDebateTables } from './tables/ai-debates.js';
import type { AiRoomsTables } from './tables/ai-rooms.js';
import type { CoreTables } from './tables/core.js';
import type { FoundationTables } from './tables/foundation.js';
import type { InstanceTables } from './tables/instances.js';
import type { RevisionTables } from './tables/revisions.js';
import type { VaultTables } from './tables/vault.js';

/** The whole database as kysely sees it: each area declares its own tables in `tables/`. */
export interface Database
  extends FoundationTables,
    CoreTables,
    VaultTables,
    AiRoomsTables,
    AiConnectionTables,
    AiDebateTables,
    InstanceTables,
    RevisionTables {}
