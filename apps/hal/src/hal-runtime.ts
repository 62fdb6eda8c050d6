import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ToolRegistry } from '@hal-ai/tools';
import type { Kysely } from 'kysely';
import { type AiService, createAiService, type RoomConnections } from './ai/ai-service.js';
import {
  type AppVault,
  type ConnectionManager,
  type ConnectionServiceOptions,
  createConnectionService,
} from './ai/connections/index.js';
import type { DebateWikiPublisherOptions } from './ai/debates/debate-wiki-publisher.js';
import { createPostgresRoomEventHub, type PostgresRoomEventHub } from './ai/rooms/postgres-room-event-hub.js';
import { createRoomTurnStops } from './ai/rooms/room-turn-stops.js';
import { createShellService, type ShellService, type ShellServiceSettings } from './ai/shell/index.js';
import { loadSkill } from './ai/skill.js';
import { createHalTools, type HalToolContext } from './ai/tools/index.js';
import { createAppVault } from './ai/vault/index.js';
import type { HalWebAccess, HalWebAccessDeps } from './ai/web/hal-web-access.js';
import { createAgentDirectory, type HalAgents } from './domain/agents/agent-directory.js';
import { createLocalAgent } from './domain/agents/agent-local.js';
import { createAgentQueue } from './domain/agents/agent-queue.js';
import { createAuditLog } from './domain/audit/audit-log.js';
import type { AuditLog } from './domain/audit/types.js';
import type { NodeAgent } from './domain/core/agent.js';
import { type Clock, systemClock } from './domain/core/clock.js';
import { settingSecretId } from './domain/core/core-settings.js';
import { createHalCore, type HalCore, type HalCoreOptions, LOCAL_SERVER_ID } from './domain/core/hal-core.js';
import { HAL_VERSION, type HalConfig } from './platform/config.js';
import { preparePrivateDataDir } from './platform/data-dir.js';
import { type OpenDatabase, openDatabase } from './platform/db/database.js';
import { createDatabaseBackup } from './platform/db/database-backup.js';
import { openPostgresDatabase } from './platform/db/database-postgres.js';
import { migrateToLatest } from './platform/db/migrate.js';
import type { Database } from './platform/db/schema.js';
import { createThreeStep, type ThreeStep } from './platform/http/three-step.js';
import { createLogger, type Logger } from './platform/logger.js';
import { createPausePoints } from './platform/pause-points.js';
import {
  createInstanceRegistry,
  type InstanceRegistry,
  liveRoomWork,
} from './platform/platform-instances.js';

/**
 * Every service of one HAL, built once by {@link createHalRuntime}. Nothing is optional: a feature
 * module declares the few of these it uses as its own small `…Deps` interface, and the runtime
 * satisfies all of them, so a service a module needs but the runtime lacks is a type error.
 */
export interface HalRuntime {
  db: Kysely<Database>;
  /** The open database behind `db`: SQLite (its raw handle: online backups, health tests) or PostgreSQL. */
  database: OpenDatabase;
  config: HalConfig;
  clock: Clock;
  logger: Logger;
  /** The hash-chained audit log; details are redacted by the vault. */
  audit: AuditLog;
  threeStep: ThreeStep;
  /** Randomness for tokens, ids and passwords. */
  random: (bytes: number) => Buffer;
  /** HAL's vault of sealed secrets: AI connection keys, tokens and verifiers live only here. */
  vault: AppVault;
  /** The AI connections (`/ops/api/ai/connections…`). */
  connections: ConnectionManager;
  /** HAL's core domain (servers, releases, jobs, …): the console routes and the AI tools call it. */
  core: HalCore;
  /** The node agents (built-in local + remote over HTTP); the core finds them here on every call. */
  agents: HalAgents;
  /** HAL's tool registry: the rooms and `hal mcp` serve the same one. */
  tools: ToolRegistry<HalToolContext>;
  /** The skill document's text every system prompt starts with (`hal_skill` returns it). */
  skill: string;
  /** The AI rooms (engine, store, live events). */
  ai: AiService;
  /** The login terminal's PTY sessions (`/ops/api/ai/shell…`). */
  shells: ShellService;
  /** This process among the HAL instances on the database (heartbeats; health lists the serving ones). */
  instances: InstanceRegistry;
  /**
   * Registers this instance and starts its heartbeat, starts the core's job runner and metrics, then marks the
   * turns and jobs a stopped instance (or this one's previous run) left running as interrupted — never those of
   * another live instance.
   */
  start(): Promise<void>;
  /** Ends the rooms, stops the core (waiting up to `graceMs` for running jobs) and closes the database. */
  close(graceMs?: number): Promise<void>;
}

/**
 * What {@link createHalRuntime} may be handed instead of its real defaults: the edges (clock,
 * randomness, logger, an already open database) and the few choices that differ between `hal
 * serve`, `hal mcp` and tests.
 */
export interface HalRuntimeEdges {
  /**
   * An open, migrated database the runtime takes over (and closes). Default: PostgreSQL at `config.databaseUrl`
   * when set, else `<dataDir>/hal.db`; the folder created (or narrowed to) 0700, migrated to the latest schema.
   */
  database?: OpenDatabase;
  clock?: Clock;
  /** Default: a pino logger whose redaction uses the vault once it is open. */
  logger?: Logger;
  random?: (bytes: number) => Buffer;
  /**
   * Environment the vault reads `HAL_VAULT_PREVIOUS_KEY` from, and the core `HAL_TEST_PAUSE_DIR` (tests' pause
   * points). Default `process.env`.
   */
  env?: Record<string, string | undefined>;
  /** Default: {@link createAppVault} over the database (creates the key file on the first run). */
  vault?: AppVault;
  /**
   * Settings of the core that tests and deployments tune (local server name, poll and metrics intervals).
   * `secrets` (default: the vault) is where confidential settings are sealed.
   */
  core?: Pick<
    HalCoreOptions,
    'hostname' | 'pollMs' | 'metricsIntervalMs' | 'concurrency' | 'versionHistoryFiles' | 'secrets'
  >;
  /** The built-in agent of this machine. Default: a local agent deploying into `dataDir`. */
  localAgent?: NodeAgent;
  /**
   * Whether remote agents reach HAL over `/agent/api` (default `true`). Without them only the local
   * server has an agent and the agent routes answer `404`.
   */
  remoteAgents?: boolean;
  /**
   * Options of the connection service (CLI discovery and its MCP attachment, proxy dispatcher, timeouts, OAuth
   * fetch), or a function of the database, clock and config that returns them.
   */
  connections?: ConnectionServiceOptions | ((services: ConnectionOptionServices) => ConnectionServiceOptions);
  /** HAL's web access, built from the runtime (linked pages, `web_fetch`). Absent → the rooms read no web. */
  web?: (services: HalWebAccessDeps) => HalWebAccess;
  /** What the rooms see as participants. Default: the connection service; `hal mcp` runs no models. */
  roomConnections?: RoomConnections;
  /** The skill document every system prompt starts with. Default: {@link loadSkill}. */
  skill?: string;
  /** Settings of the login terminal (CLI discovery, spawn, limits). */
  shells?: ShellServiceSettings;
  /** What this process is among the instances on the database (default `serve`; `hal mcp` says `mcp`). */
  instanceKind?: 'serve' | 'mcp';
  /** Time between two heartbeats (default 5 s; tests that age heartbeats by hand set it long). */
  heartbeatIntervalMs?: number;
  /** The Wiki.js publisher's edges (fetch, timeout, retry delays and timer). Default: the real ones. */
  wiki?: DebateWikiPublisherOptions;
}

/** What a function-valued {@link HalRuntimeEdges.connections} receives. */
export interface ConnectionOptionServices {
  db: Kysely<Database>;
  clock: Clock;
  config: HalConfig;
}

/**
 * HAL's composition root: builds every service once, in dependency order, over one database.
 * `hal serve` (`startServer`), `hal mcp` (`openMcpHost`) and the test harnesses all start here,
 * so there is one wiring to read. Nothing runs yet: {@link HalRuntime.start} starts the job runner.
 *
 * @example
 * const runtime = await createHalRuntime(loadConfig(process.env));
 * await runtime.start();
 * const app = createApp(runtime);
 * // …
 * await runtime.close();
 */
export async function createHalRuntime(config: HalConfig, edges: HalRuntimeEdges = {}): Promise<HalRuntime> {
  // Late-bound: the logger exists before the vault, which then hands over its redactor.
  let redactSecrets: (value: unknown) => unknown = (value) => value;
  const logger = edges.logger ?? createLogger({ redact: (value) => redactSecrets(value) });
  const database = edges.database ?? (await openConfiguredDatabase(config, logger));
  let roomEvents: PostgresRoomEventHub | undefined;
  try {
    const { db } = database;
    // The vault opens first so the audit log can redact every stored secret from its details.
    const vault =
      edges.vault ??
      (await createAppVault({ db, config, logger, ...(edges.env !== undefined ? { env: edges.env } : {}) }));
    redactSecrets = (value) => vault.redact(value);
    const clock = edges.clock ?? systemClock;
    const random = edges.random ?? randomBytes;
    const audit = createAuditLog({ db, clock, redact: (value) => vault.redact(value) });
    const threeStep = createThreeStep({ db, clock, random });
    const connectionOptions =
      typeof edges.connections === 'function' ? edges.connections({ db, clock, config }) : edges.connections;
    const connections = createConnectionService(
      { db, clock, audit, logger, vault, random, config },
      connectionOptions ?? {},
    );
    const instances = createInstanceRegistry({
      db,
      clock,
      kind: edges.instanceKind ?? 'serve',
      version: HAL_VERSION,
      ...(edges.heartbeatIntervalMs !== undefined ? { intervalMs: edges.heartbeatIntervalMs } : {}),
      jobs: async () => {
        const { status, running, concurrency } = await core.status();
        return { status, running, concurrency };
      },
      onError: (error) => logger.warn({ err: error }, 'instance heartbeat failed'),
    });
    // On PostgreSQL the room events of every instance (and `hal mcp`) cross through LISTEN/NOTIFY (SPEC §15); on
    // SQLite the rooms' default hub watches the rooms' counters instead.
    roomEvents =
      database.dialect === 'postgres'
        ? createPostgresRoomEventHub({ pool: database.pool, instanceId: instances.id, logger })
        : undefined;
    // The core finds agents through the runtime on every call, so tests may replace the directory.
    const core = createHalCore({
      db,
      backup: createDatabaseBackup(database),
      clock,
      audit,
      dataDir: config.dataDir,
      agents: { get: (serverId) => runtime.agents.get(serverId) },
      logger,
      secrets: vault,
      instance: { id: instances.id, liveIds: () => instances.liveIds() },
      pausePoints: createPausePoints((edges.env ?? process.env).HAL_TEST_PAUSE_DIR),
      ...edges.core,
    });
    const local =
      edges.localAgent ?? createLocalAgent({ serverId: LOCAL_SERVER_ID, dataDir: config.dataDir });
    const agents = createAgentDirectory(
      edges.remoteAgents === false
        ? { local }
        : {
            local,
            remote: {
              queue: createAgentQueue(),
              resolveAgentToken: async (token) => (await core.servers.resolveAgentToken(token)) ?? null,
            },
          },
    );
    const tools = createHalTools();
    const skill = edges.skill ?? (await loadSkill());
    let closing: Promise<void> | undefined;
    let started = false;
    const runtime: HalRuntime = {
      db,
      database,
      config,
      clock,
      logger,
      audit,
      threeStep,
      random,
      vault,
      connections,
      core,
      agents,
      tools,
      skill,
      // The login terminal: its sessions end when the dialog closes, on their timers, or when HAL stops.
      shells: createShellService({ audit, logger, clock, connections }, edges.shells ?? {}),
      // Set just below: the rooms read the runtime itself, so they see what the others see.
      ai: undefined as unknown as AiService,
      instances,
      async start() {
        // Events other instances publish from now on reach this one's streams.
        await roomEvents?.ready();
        await instances.start();
        started = true;
        await core.start();
        // The first report of the job runner that now runs.
        await instances.beat();
        const keep = await liveRoomWork(db, await instances.liveIds());
        await runtime.ai.engine.recoverInterrupted({ keep });
        // Debates that were running run on from the step their round had reached.
        await runtime.ai.debates.recover();
        // Debate pages whose last Wiki.js attempt failed are tried again, beside everything else.
        await runtime.ai.wiki.retryFailed();
      },
      close(graceMs) {
        closing ??= (async () => {
          try {
            // Every PTY goes with HAL (their end is audited before the database closes).
            await Promise.all([runtime.ai.close(), runtime.shells.close()]);
            // The rooms' last events still go out to the other instances, then the listening connection ends.
            await roomEvents?.close();
            await core.stop(graceMs);
            if (started) await instances.stop();
          } finally {
            await database.close();
          }
        })();
        return closing;
      },
    };
    runtime.ai = createAiService({
      deps: runtime,
      connections: edges.roomConnections ?? connections,
      registry: tools,
      skill,
      instanceId: instances.id,
      compiledQueries: config.databaseCompiledQueries,
      singleStatementAppend: config.databaseSingleStatementAppend,
      ...(roomEvents
        ? {
            events: roomEvents,
            // A reset or a disable on this instance stops the turns the others run, and theirs stop this one's.
            turnStops: createRoomTurnStops({
              db,
              signals: roomEvents,
              instanceId: instances.id,
              liveIds: () => instances.liveIds(),
              logger,
            }),
          }
        : {}),
      ...(edges.web ? { web: edges.web(runtime) } : {}),
      // The Wiki.js API key is read from the vault for each attempt; the rooms never see it.
      wiki: { ...edges.wiki, token: () => vault.get(settingSecretId('wiki.api_token', null)) },
    });
    return runtime;
  } catch (error) {
    await roomEvents?.close();
    await database.close();
    throw error;
  }
}

/** The database file inside the data folder. */
export function databasePath(dataDir: string): string {
  return path.join(dataDir, 'hal.db');
}

async function openConfiguredDatabase(config: HalConfig, logger: Logger): Promise<OpenDatabase> {
  const { dataDir } = config;
  // The data folder is used on PostgreSQL too: release artifacts, DR snapshots and the vault key file live there.
  const { widenedMode } = preparePrivateDataDir(dataDir);
  if (widenedMode !== null) {
    logger.warn(
      { dataDir, mode: widenedMode },
      `the data folder was ${widenedMode} (readable by others); it is now 0700`,
    );
  }
  const database =
    config.databaseUrl === undefined
      ? openDatabase(databasePath(dataDir), { statementCache: config.databaseStatementCache })
      : openPostgresDatabase(config.databaseUrl, { preparedStatements: config.databasePreparedStatements });
  try {
    await migrateToLatest(database.db);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}
