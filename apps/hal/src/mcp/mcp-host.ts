import fs from 'node:fs';
import path from 'node:path';
import { createHalMcpServer, type McpLogger } from '@hal-ai/mcp';
import { toPublicAction } from '@hal-ai/rooms';
import { HalError, TOOL_PRESETS, type ToolPreset } from '@hal-ai/spec';
import type { ToolSelection } from '@hal-ai/tools';
import { Migrator } from 'kysely';
import { createAgentDirectory } from '../agents/agent-directory.js';
import { createLocalAgent } from '../agents/agent-local.js';
import { createAgentQueue } from '../agents/agent-queue.js';
import { type AiService, createAiService, type RoomConnections } from '../ai/ai-service.js';
import { loadSkill } from '../ai/skill.js';
import { createHalToolContext, createHalTools, type HalToolActions } from '../ai/tools/index.js';
import { HAL_VERSION, type HalConfig } from '../config.js';
import { type Clock, systemClock } from '../core/clock.js';
import { createHalCore, LOCAL_SERVER_ID } from '../core/hal-core.js';
import { type OpenDatabase, openDatabase } from '../db/database.js';
import { migrationProvider } from '../db/migrations/index.js';
import { createDeps } from '../deps.js';
import type { Logger } from '../logger.js';
import { createAppVault, VAULT_KEY_FILE } from '../secrets/index.js';
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
};

function pinoAdapter(logger: Logger): McpLogger {
  return {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}

/**
 * Opens the running HAL's database (WAL, busy timeout) and builds what `hal mcp` serves: HAL's tool
 * registry over the same core the console calls (its job runner NOT started — the running HAL executes
 * jobs), and the room engine, so write/high calls become a HAL note plus a proposal card in the unified
 * room. Refuses a missing or unmigrated database rather than creating one.
 *
 * @throws HalError `invalid_state` when the database is missing or not migrated.
 */
export async function openMcpHost(settings: McpHostSettings): Promise<McpHost> {
  const { config, logger } = settings;
  const file = path.join(config.dataDir, 'hal.db');
  if (!fs.existsSync(file)) {
    throw new HalError(
      'invalid_state',
      `no HAL database at ${file}: set HAL_DATA_DIR to the running HAL's data folder (or run \`hal db migrate\`)`,
    );
  }
  const database = openDatabase(file);
  try {
    await assertMigrated(database, file);
    // The vault only redacts audit details here; never create a key the running HAL does not have.
    const hasKey = config.vaultKey !== undefined || fs.existsSync(path.join(config.dataDir, VAULT_KEY_FILE));
    const vault = hasKey ? await createAppVault({ db: database.db, config, logger }) : undefined;
    const deps = createDeps({
      db: database.db,
      sqlite: database.sqlite,
      config,
      clock: settings.clock ?? systemClock,
      logger,
      ...(vault ? { redact: (value: unknown) => vault.redact(value) } : {}),
    });
    const core = createHalCore({
      db: database.db,
      sqlite: database.sqlite,
      clock: deps.clock,
      audit: deps.audit,
      dataDir: config.dataDir,
      agents: { get: (serverId) => deps.agents?.get(serverId) },
      logger,
      ...(vault ? { secrets: vault } : {}),
    });
    deps.agents = createAgentDirectory({
      local: createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir: config.dataDir }),
      remote: {
        queue: createAgentQueue(),
        resolveAgentToken: async (token) => (await core.servers.resolveAgentToken(token)) ?? null,
      },
    });
    deps.core = core;
    const grants = createMcpGrants(database.db, deps.clock);
    if (settings.grant && !(await grants.verify(settings.grant.token, settings.grant))) {
      throw new HalError(
        'invalid_state',
        `${HAL_MCP_GRANT_ENV.token} is not a live grant for that room and connection (expired, ended or foreign)`,
      );
    }
    const registry = createHalTools();
    const skillText = await loadSkill();
    const ai = createAiService({ deps, connections: noConnections, registry, skill: skillText });
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
      registry,
      name: 'hal',
      version: HAL_VERSION,
      ...(settings.selection ? { selection: settings.selection } : {}),
      instructions:
        'HAL operates hosting infrastructure. Read tools answer at once. Write and high tools never run from ' +
        'here: they return {approvalRequested, actionId}; an operator decides in HAL. Follow up with ' +
        'hal_action_status or hal_actions_pending.',
      logger: pinoAdapter(logger),
      context: ({ clientName }) =>
        createHalToolContext(deps, {
          actor: `mcp:${mcpClientLabel(clientName)}`,
          actions,
          skill: async () => skillText,
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
        await ai.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
