import { HalError } from '@hal-ai/spec';
import { sql } from 'kysely';
import type { NodeAgent } from './agent.js';
import { type Job, type JobHandler, queueAuditedJob } from './core-jobs.js';
import { findRelease, hashFile } from './core-releases.js';
import {
  type ArgsOf,
  DeployArgs,
  DeploymentsListArgs,
  ModuleHealthArgs,
  ReconcileArgs,
  RollbackArgs,
} from './core-schemas.js';
import { loadServer } from './core-servers.js';
import {
  type Actor,
  type CoreContext,
  type Executor,
  pageOf,
  pageResult,
  parseInput,
} from './core-support.js';

/** Desired and actual state of one module on one server. */
export interface Deployment {
  /** `<serverId>/<module>` */
  id: string;
  serverId: string;
  module: string;
  desiredVersion: string | null;
  actualVersion: string | null;
  previousVersion: string | null;
  updatedAt: string;
}

const DEPLOYABLE_STATES = ['active', 'maintenance'];

/** HAL never deploys or rolls back itself through its own agents (SPEC §4). */
function refuseSelf(module: string): void {
  if (module === 'hal') {
    throw new HalError(
      'hal_self_deploy',
      'HAL does not deploy or roll back itself; update HAL from its host',
    );
  }
}

async function requireDeployableServer(db: Executor, serverId: string) {
  const server = await loadServer(db, serverId);
  if (!DEPLOYABLE_STATES.includes(server.state)) {
    throw new HalError('server_not_active', `Server ${server.name} is ${server.state}`, {
      details: { state: server.state },
    });
  }
  return server;
}

async function requireApprovedRelease(db: Executor, module: string, version: string) {
  const release = await findRelease(db, module, version);
  if (!release) {
    throw new HalError('not_found', `No release ${module}@${version}`, { details: { module, version } });
  }
  if (release.state !== 'approved') {
    throw new HalError(
      'release_not_approved',
      `${module}@${version} is ${release.state}; only approved releases deploy`,
      {
        details: { state: release.state },
      },
    );
  }
  return release;
}

function agentFor(ctx: CoreContext, serverId: string): NodeAgent {
  const agent = ctx.agents.get(serverId);
  if (!agent) throw new HalError('agent_unavailable', `No agent is connected for server ${serverId}`);
  return agent;
}

/** Stores what the agent reports as the actual state of a module. */
async function recordActual(
  ctx: CoreContext,
  serverId: string,
  module: string,
  actual: { current: string | null; previous: string | null },
  desired?: string | null,
): Promise<void> {
  const now = ctx.nowIso();
  await ctx.db
    .insertInto('deployments')
    .values({
      server_id: serverId,
      module,
      desired_version: desired ?? null,
      actual_version: actual.current,
      previous_version: actual.previous,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['server_id', 'module']).doUpdateSet({
        actual_version: actual.current,
        previous_version: actual.previous,
        updated_at: now,
        ...(desired === undefined ? {} : { desired_version: desired }),
      }),
    )
    .execute();
}

async function deployRelease(
  ctx: CoreContext,
  agent: NodeAgent,
  module: string,
  version: string,
  log: (line: string) => void,
): Promise<{ current: string; previous: string | null }> {
  const release = await requireApprovedRelease(ctx.db, module, version);
  const stored = await hashFile(release.artifact_path);
  if (stored.sha256 !== release.sha256) {
    throw new HalError(
      'checksum_mismatch',
      `Stored artifact of ${module}@${version} no longer matches its digest`,
    );
  }
  log(`artifact ${module}@${version} verified (sha256 ${release.sha256}, ${release.size} bytes)`);
  return agent.deploy(
    { module, version, path: release.artifact_path, sha256: release.sha256, size: release.size },
    log,
  );
}

/** Job handlers for `deploy`, `rollback`, `reconcile` and `module_health`. */
export function createDeploymentHandlers(
  ctx: CoreContext,
  options: { healthCheck: () => Promise<boolean> },
): Record<string, JobHandler> {
  const argsOf = (job: Job) => job.args as { module: string; version?: string; serverId: string };
  return {
    deploy: {
      async plan() {
        return ['verify', 'deploy', 'record', 'health'];
      },
      async run(step, { job, log, state }) {
        const { module, version = '', serverId } = argsOf(job);
        const agent = agentFor(ctx, serverId);
        if (step === 'verify') {
          refuseSelf(module);
          const server = await requireDeployableServer(ctx.db, serverId);
          const release = await requireApprovedRelease(ctx.db, module, version);
          const stored = await hashFile(release.artifact_path);
          if (stored.sha256 !== release.sha256) {
            throw new HalError(
              'checksum_mismatch',
              `Stored artifact of ${module}@${version} no longer matches its digest`,
            );
          }
          log(`server ${server.name} is ${server.state}; release ${module}@${version} approved`);
          log(`artifact verified: sha256 ${release.sha256}, ${release.size} bytes`);
        } else if (step === 'deploy') {
          const release = await requireApprovedRelease(ctx.db, module, version);
          const result = await agent.deploy(
            { module, version, path: release.artifact_path, sha256: release.sha256, size: release.size },
            log,
          );
          log(`current is now ${result.current} (previous ${result.previous ?? 'none'})`);
          state.current = result.current;
          state.previous = result.previous;
        } else if (step === 'record') {
          const actual = (await agent.modules()).find((m) => m.module === module);
          if (!actual || actual.current !== version) {
            throw new HalError(
              'invalid_state',
              `Agent reports ${module} at ${actual?.current ?? 'nothing'}, not ${version}`,
            );
          }
          await recordActual(ctx, serverId, module, actual);
          log(`recorded actual ${module}@${actual.current} on ${serverId}`);
        } else if (step === 'health') {
          if (!(await options.healthCheck())) {
            log('health check disabled by setting deploy.health_check');
            return;
          }
          const health = await agent.health(module);
          log(`health: ${health.ok ? 'ok' : 'failing'} — ${health.detail}`);
          state.health = health;
          if (!health.ok)
            throw new HalError('invalid_state', `${module} is unhealthy after deploy: ${health.detail}`);
        }
      },
    },

    rollback: {
      async plan() {
        return ['rollback', 'record'];
      },
      async run(step, { job, log, state }) {
        const { module, serverId } = argsOf(job);
        const agent = agentFor(ctx, serverId);
        if (step === 'rollback') {
          refuseSelf(module);
          await requireDeployableServer(ctx.db, serverId);
          const result = await agent.rollback(module, log);
          log(`current is now ${result.current} (previous ${result.previous ?? 'none'})`);
          state.current = result.current;
          state.previous = result.previous;
        } else if (step === 'record') {
          const actual = (await agent.modules()).find((m) => m.module === module);
          if (!actual) throw new HalError('invalid_state', `Agent no longer reports module ${module}`);
          // A rollback is a decision: the rolled-back version becomes the desired one, so reconcile keeps it.
          await recordActual(ctx, serverId, module, actual, actual.current);
          log(`recorded actual and desired ${module}@${actual.current ?? 'none'}`);
        }
      },
    },

    reconcile: {
      async plan(job) {
        const serverId = (job.args as { serverId?: string }).serverId;
        if (serverId) return [`reconcile:${serverId}`];
        const servers = await ctx.db
          .selectFrom('servers')
          .select('id')
          .where('state', 'in', ['active', 'maintenance'])
          .orderBy('id')
          .execute();
        return servers.map((s) => `reconcile:${s.id}`);
      },
      async run(step, { log, state }) {
        const serverId = step.slice('reconcile:'.length);
        const server = await requireDeployableServer(ctx.db, serverId);
        const agent = agentFor(ctx, serverId);
        const actual = new Map((await agent.modules()).map((m) => [m.module, m]));
        const desired = await ctx.db
          .selectFrom('deployments')
          .selectAll()
          .where('server_id', '=', serverId)
          .where('desired_version', 'is not', null)
          .execute();
        const changes: string[] = [];
        for (const row of desired) {
          const want = row.desired_version as string;
          const have = actual.get(row.module);
          if (have?.current === want) {
            log(`${row.module}: at ${want}, as desired`);
          } else if (row.module === 'hal') {
            log(`${row.module}: differs (${have?.current ?? 'none'} ≠ ${want}) but HAL never deploys itself`);
            continue;
          } else if (have?.previous === want) {
            log(`${row.module}: ${have.current} → ${want} by rollback`);
            await agent.rollback(row.module, log);
            changes.push(`${row.module}: rollback to ${want}`);
          } else {
            log(`${row.module}: ${have?.current ?? 'none'} → ${want} by deploy`);
            await deployRelease(ctx, agent, row.module, want, log);
            changes.push(`${row.module}: deploy ${want}`);
          }
          const after = (await agent.modules()).find((m) => m.module === row.module);
          if (after) await recordActual(ctx, serverId, row.module, after);
        }
        log(`${server.name}: ${changes.length} change(s)`);
        state[serverId] = changes;
      },
    },

    module_health: {
      async plan() {
        return ['health'];
      },
      async run(_step, { job, log, state }) {
        const { module, serverId } = argsOf(job);
        const health = await agentFor(ctx, serverId).health(module);
        log(`health: ${health.ok ? 'ok' : 'failing'} — ${health.detail}`);
        state.health = health;
        if (!health.ok) throw new HalError('invalid_state', `${module} is unhealthy: ${health.detail}`);
      },
    },
  };
}

/** Deployment requests: each validates now, then queues a job (answer `202 {job}`). */
export function createDeploymentFunctions(ctx: CoreContext, wake: () => void) {
  const { db } = ctx;
  return {
    /** Desired vs actual per server and module. */
    async list(
      input: ArgsOf<typeof DeploymentsListArgs> = {},
    ): Promise<{ deployments: Deployment[]; nextCursor: string | null }> {
      const args = parseInput(DeploymentsListArgs, input);
      const { limit, cursor } = pageOf(args);
      const key = sql<string>`server_id || '/' || module`;
      let query = db
        .selectFrom('deployments')
        .selectAll()
        .select(key.as('id'))
        .orderBy(key)
        .limit(limit + 1);
      if (args.serverId) query = query.where('server_id', '=', args.serverId);
      if (args.module) query = query.where('module', '=', args.module);
      if (cursor) query = query.where(key, '>', cursor);
      const rows = (await query.execute()).map((r) => ({
        id: r.id,
        serverId: r.server_id,
        module: r.module,
        desiredVersion: r.desired_version,
        actualVersion: r.actual_version,
        previousVersion: r.previous_version,
        updatedAt: r.updated_at,
      }));
      const { items, nextCursor } = pageResult(rows, limit);
      return { deployments: items, nextCursor };
    },

    /**
     * Checks a deploy request without changing anything (the refusals `deploy` would give), so a console or a
     * proposal can refuse before asking for confirmations.
     */
    async check(input: ArgsOf<typeof DeployArgs>): Promise<void> {
      const args = parseInput(DeployArgs, input);
      refuseSelf(args.module);
      await requireDeployableServer(db, args.serverId);
      await requireApprovedRelease(db, args.module, args.version);
    },

    /** Deploys an approved release to a server (never `hal`): sets the desired version and queues a deploy job. */
    async deploy(actor: Actor, input: ArgsOf<typeof DeployArgs>): Promise<{ job: Job }> {
      const args = parseInput(DeployArgs, input);
      refuseSelf(args.module);
      return queueAuditedJob(ctx, wake, actor, 'deploy.request', async (trx) => {
        const server = await requireDeployableServer(trx, args.serverId);
        const release = await requireApprovedRelease(trx, args.module, args.version);
        const before = await trx
          .selectFrom('deployments')
          .selectAll()
          .where('server_id', '=', server.id)
          .where('module', '=', args.module)
          .executeTakeFirst();
        await trx
          .insertInto('deployments')
          .values({
            server_id: server.id,
            module: args.module,
            desired_version: args.version,
            actual_version: null,
            previous_version: null,
            updated_at: ctx.nowIso(),
          })
          .onConflict((oc) =>
            oc
              .columns(['server_id', 'module'])
              .doUpdateSet({ desired_version: args.version, updated_at: ctx.nowIso() }),
          )
          .execute();
        return {
          job: {
            type: 'deploy',
            target: `server:${server.id}`,
            args: { module: args.module, version: args.version, serverId: server.id, releaseId: release.id },
            reason: args.reason ?? null,
          },
          details: {
            module: args.module,
            before: { desiredVersion: before?.desired_version ?? null },
            after: { desiredVersion: args.version },
          },
        };
      });
    },

    /** Rolls a module on a server back to its previous version (never `hal`). */
    async rollback(actor: Actor, input: ArgsOf<typeof RollbackArgs>): Promise<{ job: Job }> {
      const args = parseInput(RollbackArgs, input);
      refuseSelf(args.module);
      return queueAuditedJob(ctx, wake, actor, 'deploy.rollback', async (trx) => {
        const server = await requireDeployableServer(trx, args.serverId);
        const current = await trx
          .selectFrom('deployments')
          .selectAll()
          .where('server_id', '=', server.id)
          .where('module', '=', args.module)
          .executeTakeFirst();
        return {
          job: {
            type: 'rollback',
            target: `server:${server.id}`,
            args: { module: args.module, serverId: server.id },
            reason: args.reason ?? null,
          },
          details: {
            module: args.module,
            before: {
              actualVersion: current?.actual_version ?? null,
              previousVersion: current?.previous_version ?? null,
            },
          },
        };
      });
    },

    /** Brings actual state to desired state on one server, or on every active server. */
    async reconcile(actor: Actor, input: ArgsOf<typeof ReconcileArgs> = {}): Promise<{ job: Job }> {
      const args = parseInput(ReconcileArgs, input);
      return queueAuditedJob(ctx, wake, actor, 'deploy.reconcile', async (trx) => {
        if (args.serverId) await requireDeployableServer(trx, args.serverId);
        return {
          job: {
            type: 'reconcile',
            target: args.serverId ? `server:${args.serverId}` : 'servers:all',
            args: args.serverId ? { serverId: args.serverId } : {},
            reason: args.reason ?? null,
          },
        };
      });
    },

    /** Checks a module's health on a server (a job, so the check and its answer are on record). */
    async health(actor: Actor, input: ArgsOf<typeof ModuleHealthArgs>): Promise<{ job: Job }> {
      const args = parseInput(ModuleHealthArgs, input);
      return queueAuditedJob(ctx, wake, actor, 'module.health', async (trx) => {
        await requireDeployableServer(trx, args.serverId);
        return {
          job: {
            type: 'module_health',
            target: `server:${args.serverId}`,
            args: { module: args.module, serverId: args.serverId },
          },
          details: { module: args.module },
        };
      });
    },
  };
}

/** The deployment functions' type. */
export type DeploymentFunctions = ReturnType<typeof createDeploymentFunctions>;
