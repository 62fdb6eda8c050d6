import fs from 'node:fs';
import path from 'node:path';
import { createHalMcpServer, type McpLogger } from '@hal-ai/mcp';
import { toPublicAction } from '@hal-ai/rooms';
import { HalError, TOOL_PRESETS, type ToolPreset } from '@hal-ai/spec';
import type { ToolSelection } from '@hal-ai/tools';
import { createMemoryVaultStore, createVault, generateVaultKey } from '@hal-ai/vault';
import { Migrator } from 'kysely';
import type { Clock } from '../../domain/core/clock.js';
import { createHalRuntime, databasePath } from '../../hal-runtime.js';
import { HAL_VERSION, type HalConfig } from '../../platform/config.js';
import { type OpenDatabase, openDatabase } from '../../platform/db/database.js';
import { openPostgresDatabase } from '../../platform/db/database-postgres.js';
import { migrationProvider } from '../../platform/db/migrations/index.js';
import type { Logger } from '../../platform/logger.js';
import type { AiService, RoomConnections } from '../ai-service.js';
import { createHalToolContext, type HalToolActions } from '../tools/index.js';
import { VAULT_KEY_FILE } from '../vault/index.js';
import { createMcpGrants, HAL_MCP_GRANT_ENV, type McpGrantedConversation } from './mcp-grants.js';

/** Where `hal mcp` finds its tool selection (a preset name, or `custom:tool_a,tool_b`). */
export const HAL_MCP_TOOLS_ENV = 'HAL_MCP_TOOLS';

/** Settings of {@link openMcpHost}. */
export interface McpHostSettings {
  config: HalConfig;
  logger: Logger;
  clock?: Clock;
  /** Which tools are listed and callable (default: all). */
  selection?: ToolSelection;
  /**
   * The CLI run this server was attached to (`HAL_MCP_GRANT` and what it claims, {@link readMcpGrant}): checked
   * against the grant `hal serve` issued, so its proposals land in that run's room, attributed to its connection.
   */
  grant?: { token: string } & McpGrantedConversation;
}

/**
 * The grant an attached `hal mcp` was started with, from its environment; `undefined` when it was not (an outside
 * MCP client). A partial set (a token without its room and connection) is refused.
 * @throws HalError `validation_failed` for a partial set.
 */
export function readMcpGrant(
  env: Record<string, string | undefined>,
): ({ token: string } & McpGrantedConversation) | undefined {
  const token = env[HAL_MCP_GRANT_ENV.token];
  const roomId = env[HAL_MCP_GRANT_ENV.room];
  const connectionId = env[HAL_MCP_GRANT_ENV.connection];
  if (!token && !roomId && !connectionId) return undefined;
  if (!token || !roomId || !connectionId) {
    throw new HalError(
      'validation_failed',
      `${HAL_MCP_GRANT_ENV.token}, ${HAL_MCP_GRANT_ENV.room} and ${HAL_MCP_GRANT_ENV.connection} go together`,
    );
  }
  return { token, roomId, connectionId, turnId: env[HAL_MCP_GRANT_ENV.turn] || null };
}

/** An MCP server over the running HAL's database, and how to let go of it. */
export interface McpHost {
  /** The SDK server, ready for `serveStdio`. */
  server: ReturnType<typeof createHalMcpServer>;
  /** The room engine and store the proposals go through. */
  ai: AiService;
  /** Closes the server, waits for the engine and closes the database. */
  close(): Promise<void>;
}

/**
 * Parses `HAL_MCP_TOOLS`: `all` · `read_write` · `read_only` · `none` · `custom:a,b`.
 * @throws HalError `validation_failed` for anything else.
 */
export function parseMcpToolSelection(raw: string | undefined): ToolSelection | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim();
  if (value.startsWith('custom:')) {
    const enabled = value
      .slice('custom:'.length)
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    return { preset: 'custom', enabled };
  }
  if ((TOOL_PRESETS as readonly string[]).includes(value) && value !== 'custom') {
    return { preset: value as ToolPreset };
  }
  throw new HalError('validation_failed', `${HAL_MCP_TOOLS_ENV} must be a tool preset or custom:<names>`);
}

/** MCP clients name themselves; only a short, plain label reaches the audit log and the room note. */
export function mcpClientLabel(name: string | undefined): string {
  const cleaned = (name ?? '')
    .replace(/[^A-Za-z0-9._ -]/g, '')
    .trim()
    .slice(0, 64);
  return cleaned === '' ? 'unknown' : cleaned;
}

/**
 * The running HAL's database: PostgreSQL at `HAL_DATABASE_URL` when set (SPEC §15), else `hal.db` in the data folder,
 * which must exist. Either must be migrated: `hal mcp` never creates or migrates a database.
 */
async function openServingDatabase(config: HalConfig): Promise<OpenDatabase> {
  // The URL may carry a password: messages name the variable, never its value.
  const where = config.databaseUrl === undefined ? databasePath(config.dataDir) : 'HAL_DATABASE_URL';
  if (config.databaseUrl === undefined && !fs.existsSync(where)) {
    throw new HalError(
      'invalid_state',
      `no HAL database at ${where}: set HAL_DATA_DIR to the running HAL's data folder (or run \`hal db migrate\`)`,
    );
  }
  const database =
    config.databaseUrl === undefined ? openDatabase(where) : openPostgresDatabase(config.databaseUrl);
  try {
    await assertMigrated(database, where);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}

async function assertMigrated(database: OpenDatabase, file: string): Promise<void> {
  const migrations = await new Migrator({ db: database.db, provider: migrationProvider }).getMigrations();
  const missing = migrations.filter((migration) => migration.executedAt === undefined);
  if (missing.length > 0) {
    throw new HalError(
      'invalid_state',
      `the database ${file} is not migrated (${missing.length} pending): start HAL once or run \`hal db migrate\` first`,
    );
  }
}

// The MCP process never runs a model: proposals and reads need no participants.
const noConnections: RoomConnections = {
  list: async () => [],
  get: async () => undefined,
  languageModel: async () => {
    throw new HalError('invalid_state', 'hal mcp runs no models');
  },
  reportProviderError: async () => undefined,
  onChange: () => () => undefined,
  revision: async () => 0,
};

function pinoAdapter(logger: Logger): McpLogger {
  return {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}

/**
 * Opens the running HAL's database (SQLite with WAL and a busy timeout, or PostgreSQL) and builds what `hal mcp` serves: HAL's tool
 * registry over the same core the console calls (its job runner NOT started — the running HAL executes
 * jobs), and the room engine, so write/high calls become a HAL note plus a proposal card in the unified
 * room. Refuses a missing or unmigrated database rather than creating one.
 *
 * @throws HalError `invalid_state` when the database is missing or not migrated.
 */
export async function openMcpHost(settings: McpHostSettings): Promise<McpHost> {
  const { config, logger } = settings;
  const database = await openServingDatabase(config);
  // The vault only redacts audit details here; never create a key the running HAL does not have.
  // Without one, a vault under a key of this process alone holds nothing and redacts nothing.
  const hasKey = config.vaultKey !== undefined || fs.existsSync(path.join(config.dataDir, VAULT_KEY_FILE));
  const runtime = await createHalRuntime(config, {
    database,
    logger,
    ...(settings.clock ? { clock: settings.clock } : {}),
    // Confidential settings are sealed only into the vault the running HAL opens.
    ...(hasKey
      ? {}
      : {
          vault: createVault({ key: generateVaultKey(), store: createMemoryVaultStore() }),
          core: { secrets: undefined },
        }),
    roomConnections: noConnections,
  });
  const { ai } = runtime;
  try {
    const grants = createMcpGrants(runtime.db, runtime.clock);
    if (settings.grant && !(await grants.verify(settings.grant.token, settings.grant))) {
      throw new HalError(
        'invalid_state',
        `${HAL_MCP_GRANT_ENV.token} is not a live grant for that room and connection (expired, ended or foreign)`,
      );
    }
    const actions: HalToolActions = {
      async get(id) {
        const record = await ai.store.getAction(id);
        return record ? toPublicAction(record) : undefined;
      },
      async pending() {
        return (await ai.store.listActionsByStatus('proposed')).map(toPublicAction);
      },
    };
    const server = createHalMcpServer({
      registry: runtime.tools,
      name: 'hal',
      version: HAL_VERSION,
      ...(settings.selection ? { selection: settings.selection } : {}),
      instructions:
        'HAL operates hosting infrastructure. Read tools answer at once. Write and high tools never run from ' +
        'here: they return {approvalRequested, actionId}; an operator decides in HAL. Follow up with ' +
        'hal_action_status or hal_actions_pending.',
      logger: pinoAdapter(logger),
      context: ({ clientName }) =>
        createHalToolContext(runtime, {
          actor: `mcp:${mcpClientLabel(clientName)}`,
          actions,
          skill: async () => runtime.skill,
        }),
      onApprovalRequest: async ({ tool, args, clientName }) => {
        // Checked again at each request: the grant ends with the run it was issued for.
        const conversation = settings.grant
          ? await grants.verify(settings.grant.token, settings.grant)
          : undefined;
        if (settings.grant && !conversation) {
          throw new HalError('invalid_state', 'the CLI run this MCP server was attached to has ended');
        }
        const action = await ai.engine.createExternalProposal({
          tool,
          args,
          source: 'mcp',
          clientName: mcpClientLabel(clientName),
          ...(conversation ? { conversation } : {}),
        });
        return { actionId: action.id };
      },
    });
    return {
      server,
      ai,
      async close() {
        await server.close().catch(() => undefined);
        // The core was never started here: this closes the rooms and the database.
        await runtime.close();
      },
    };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
