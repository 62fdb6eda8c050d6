import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { HalError } from '@hal-ai/spec';
import type { Kysely } from 'kysely';
import type { DatabaseBackup } from '../../platform/db/database-backup.js';
import type { Database } from '../../platform/db/schema.js';
import type { PausePoints } from '../../platform/pause-points.js';
import type { AuditLog } from '../audit/types.js';
import type { AgentDirectory } from './agent.js';
import type { Clock } from './clock.js';
import { type ChangelogEntry, readVersionHistory, VERSION_HISTORY_CANDIDATES } from './core-changelog.js';
import { createDeploymentFunctions, createDeploymentHandlers } from './core-deployments.js';
import { createDrFunctions } from './core-dr.js';
import { createEmergencyFunctions, createIncidentFunctions, createMailFunctions } from './core-incidents.js';
import {
  createJobRunner,
  type JobRunner,
  type JobRunnerInstance,
  type JobRunnerStatus,
} from './core-job-runner.js';
import { createJobFunctions } from './core-jobs.js';
import { createReleaseFunctions } from './core-releases.js';
import { createServerFunctions, recordMetrics } from './core-servers.js';
import {
  createSettingsApplyHandler,
  createSettingsFunctions,
  type SettingSecretStore,
} from './core-settings.js';
import { type CoreContext, type CoreLogger, createIdGenerator, silentLogger } from './core-support.js';

/** The id of the record of the machine HAL runs on; fixed so the local agent can be built before start-up. */
export const LOCAL_SERVER_ID = 'srv_local';

/** Settings of {@link createHalCore}. */
export interface HalCoreOptions {
  db: Kysely<Database>;
  /** How DR snapshots copy the database behind `db` (`createDatabaseBackup`). */
  backup: DatabaseBackup;
  clock: Clock;
  audit: AuditLog;
  dataDir: string;
  agents: AgentDirectory;
  logger?: CoreLogger;
  /** Name of the local server record (default `os.hostname()`). */
  hostname?: string;
  /** Jobs at once before settings are applied (default: the `jobs.concurrency` setting, else 2). */
  concurrency?: number;
  /** Queue poll interval (default 1000 ms). */
  pollMs?: number;
  /**
   * This process among the instances on the database (SPEC §15): jobs it claims name it, and start-up interrupts
   * only jobs of instances that stopped heartbeating. Default: a lone instance (every `running` job is a leftover).
   */
  instance?: JobRunnerInstance;
  /** How often metrics of servers with an agent are sampled (default 60 s; 0 disables). */
  metricsIntervalMs?: number;
  random?: (bytes: number) => Buffer;
  /** Where to look for `VERSION-HISTORY.md`. */
  versionHistoryFiles?: string[];
  /**
   * Where confidential settings live (the app vault). Without it they read as not set and cannot be set
   * (a process that has no vault key, e.g. `hal mcp` before the first `hal serve`).
   */
  secrets?: SettingSecretStore;
  /** Marked points a `kill -9` test may hold the core at (`createPausePoints`). Default: none. */
  pausePoints?: PausePoints;
}

/**
 * Builds HAL's core: the one API the console routes and the AI tools both call. Every mutating function
 * takes the acting `actor` first, validates its arguments with the exported valibot schemas, and writes its
 * change and one audit entry in the same transaction.
 *
 * @example
 * const core = createHalCore({ db, backup, clock, audit, dataDir, agents });
 * await core.start();
 * const { job } = await core.deployments.deploy('operator:1', { module: 'web', version: '1.2.0', serverId });
 */
export function createHalCore(options: HalCoreOptions) {
  const clock = options.clock;
  const random = options.random ?? randomBytes;
  const newId = createIdGenerator(clock, random);
  const ctx: CoreContext = {
    db: options.db,
    clock,
    audit: options.audit,
    dataDir: options.dataDir,
    agents: options.agents,
    logger: options.logger ?? silentLogger,
    newId,
    nowIso: () => new Date(clock.now()).toISOString(),
    random,
    ...(options.pausePoints ? { pausePoints: options.pausePoints } : {}),
  };
  let runner: JobRunner | null = null;
  let metricsTimer: NodeJS.Timeout | null = null;
  const wake = () => runner?.wake();

  const servers = createServerFunctions(ctx);
  const releases = createReleaseFunctions(ctx);
  const deployments = createDeploymentFunctions(ctx, wake);
  const jobs = createJobFunctions(ctx, () => runner);
  const incidents = createIncidentFunctions(ctx);
  const mail = createMailFunctions(ctx);
  const emergency = createEmergencyFunctions(ctx);
  const settings = createSettingsFunctions(ctx, wake, options.secrets);
  const numberSetting = async (key: string, fallback: number) => {
    const value = await settings.value(key);
    return typeof value === 'number' ? value : fallback;
  };
  const dr = createDrFunctions(ctx, options.backup, () => numberSetting('dr.retention_count', 14));

  const handlers = {
    ...createDeploymentHandlers(ctx, {
      healthCheck: async () => (await settings.value('deploy.health_check')) !== false,
    }),
    settings_apply: createSettingsApplyHandler(ctx, settings, (values) => {
      const n = values['jobs.concurrency'];
      if (typeof n === 'number') runner?.setConcurrency(n);
    }),
  };

  async function ensureLocalServer(): Promise<void> {
    const name = options.hostname ?? (os.hostname().toLowerCase() || 'localhost');
    await ctx.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('servers')
        .selectAll()
        .where('id', '=', LOCAL_SERVER_ID)
        .executeTakeFirst();
      if (existing) return;
      const now = ctx.nowIso();
      const row = {
        id: LOCAL_SERVER_ID,
        name,
        role: 'hal',
        kind: 'local' as const,
        state: 'active' as const,
        agent_token_hash: null,
        isolated_reason: null,
        approved_by: 'system',
        approved_at: now,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('servers').values(row).execute();
      await ctx.audit.append(
        {
          actor: 'system',
          action: 'server.create',
          target: `server:${LOCAL_SERVER_ID}`,
          details: { after: row },
        },
        trx,
      );
    });
  }

  async function sampleMetrics(): Promise<void> {
    const days = await numberSetting('metrics.retention_days', 14);
    const cutoff = new Date(clock.now() - days * 86_400_000).toISOString();
    await ctx.db.deleteFrom('server_metrics').where('at', '<', cutoff).execute();
    const live = await ctx.db
      .selectFrom('servers')
      .select('id')
      .where('state', 'in', ['active', 'maintenance'])
      .execute();
    for (const { id } of live) {
      const agent = ctx.agents.get(id);
      if (!agent) continue;
      try {
        await recordMetrics(ctx, id, await agent.metrics());
      } catch (error) {
        ctx.logger.warn({ err: error, serverId: id }, 'metrics sample failed');
      }
    }
  }

  return {
    servers,
    releases,
    deployments,
    jobs,
    incidents,
    mail,
    emergency,
    dr,
    settings,

    /** HAL's version history, newest first. */
    async changelog(): Promise<{ versions: ChangelogEntry[] }> {
      return {
        versions: await readVersionHistory(options.versionHistoryFiles ?? VERSION_HISTORY_CANDIDATES),
      };
    },

    /** The console's first screen: counts by state, open incidents, DR, mail and the local host's metrics. */
    async overview() {
      const db = ctx.db;
      const countBy = async (table: 'servers' | 'jobs' | 'releases' | 'mail_services', column: 'state') => {
        const rows = await db
          .selectFrom(table)
          .select([column, (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy(column)
          .execute();
        return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)])) as Record<string, number>;
      };
      const openIncidents = await db
        .selectFrom('incidents')
        .select(['severity', (eb) => eb.fn.countAll<number>().as('n')])
        .where('state', '=', 'open')
        .groupBy('severity')
        .execute();
      const local = await servers.get({ id: LOCAL_SERVER_ID }).catch(() => null);
      const drStatus = await dr.status();
      return {
        servers: await countBy('servers', 'state'),
        jobs: await countBy('jobs', 'state'),
        releases: await countBy('releases', 'state'),
        mailServices: await countBy('mail_services', 'state'),
        incidents: { open: Object.fromEntries(openIncidents.map((r) => [r.severity, Number(r.n)])) },
        recentJobs: (await jobs.list({ limit: 5 })).jobs,
        dr: { count: drStatus.count, lastAgeS: drStatus.lastAgeS, verified: drStatus.verified },
        local: local ? { server: local.server, metrics: local.metrics } : null,
        runner: runner ? await runner.status() : { status: 'stopped', running: 0, queued: 0, concurrency: 0 },
      };
    },

    /**
     * Creates the local server record if missing, removes DR snapshot files a crash left unfinished, marks jobs a
     * crash left `running` as failed (`interrupted`),
     * starts the job runner, takes a first metrics sample and starts the sampling interval.
     */
    async start(): Promise<{ localServerId: string; interrupted: number }> {
      await ensureLocalServer();
      await dr.removeLeftovers();
      const configured = await settings.value('jobs.concurrency');
      runner = createJobRunner(ctx, {
        handlers,
        concurrency: options.concurrency ?? (typeof configured === 'number' ? configured : 2),
        pollMs: options.pollMs ?? 1000,
        ...(options.instance ? { instance: options.instance } : {}),
      });
      const { interrupted } = await runner.start();
      const every = options.metricsIntervalMs ?? 60_000;
      if (every > 0) {
        // The first sample is taken now, so the overview shows the host at once, not after the first interval.
        await sampleMetrics().catch((error) =>
          ctx.logger.warn({ err: error }, 'first metrics sample failed'),
        );
        metricsTimer = setInterval(() => void sampleMetrics().catch(() => undefined), every);
        metricsTimer.unref();
      }
      return { localServerId: LOCAL_SERVER_ID, interrupted };
    },

    /** Stops the runner (waiting up to `graceMs` for running jobs) and metrics sampling. */
    async stop(graceMs?: number): Promise<void> {
      if (metricsTimer) clearInterval(metricsTimer);
      metricsTimer = null;
      await runner?.stop(graceMs);
    },

    /**
     * Takes one metrics sample of every active server that has an agent and drops samples older than
     * `metrics.retention_days` (runs every `metricsIntervalMs` after `start()`).
     */
    sampleMetrics,

    /** Job runner state (for `/api/health`). */
    async status(): Promise<JobRunnerStatus> {
      return runner ? runner.status() : { status: 'stopped', running: 0, queued: 0, concurrency: 0 };
    },

    /** Waits until no job is queued or running (tests, graceful shutdown). */
    async idle(timeoutMs?: number): Promise<void> {
      await runner?.idle(timeoutMs);
    },
  };
}

/** HAL's core API. */
export type HalCore = ReturnType<typeof createHalCore>;

/**
 * The app's core, or `internal_error` when it is not running (the console and the AI tools cannot work
 * without it).
 */
export function runningCore(holder: { core?: HalCore | undefined }): HalCore {
  if (!holder.core) throw new HalError('internal_error', 'The HAL core is not running');
  return holder.core;
}
