import { HalError } from '@hal-ai/spec';
import type { Selectable } from 'kysely';
import type { ServersTable } from '../../platform/db/tables/core.js';
import { sha256Hex } from '../../platform/platform-hash.js';
import type { ServerMetrics } from './agent.js';
import {
  type ArgsOf,
  ServerCreateArgs,
  ServerIdArgs,
  ServerIsolateArgs,
  ServerMaintenanceArgs,
  ServerMetricsArgs,
  ServersListArgs,
} from './core-schemas.js';
import {
  type Actor,
  auditChange,
  type CoreContext,
  type Executor,
  loadRecord,
  pageOf,
  pageResult,
  parseInput,
} from './core-support.js';

/** A server as clients see it (the agent token hash never leaves the database). */
export interface Server {
  id: string;
  name: string;
  role: string;
  kind: 'local' | 'remote';
  state: ServersTable['state'];
  hasAgentToken: boolean;
  isolatedReason: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A stored metrics sample. */
export interface ServerMetricsSample {
  serverId: string;
  metrics: ServerMetrics;
}

function toServer(row: Selectable<ServersTable>): Server {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    kind: row.kind,
    state: row.state,
    hasAgentToken: row.agent_token_hash !== null,
    isolatedReason: row.isolated_reason,
    approvedBy: row.approved_by,
    approvedAt: row.approved_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** SHA-256 hex of an agent token: the only form in which HAL keeps it. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Loads a server row or throws `not_found`; deleted servers are still found (their history stays readable). */
export async function loadServer(db: Executor, id: string): Promise<Selectable<ServersTable>> {
  return loadRecord(db, 'servers', 'server', id);
}

/** Server lifecycle: register → approve → active ⇄ maintenance → isolated / deleted. */
export function createServerFunctions(ctx: CoreContext) {
  const { db, audit } = ctx;

  async function transition(
    actor: Actor,
    action: string,
    id: string,
    allowed: ReadonlyArray<ServersTable['state']>,
    refusal: 'server_not_pending' | 'server_not_active' | 'invalid_state',
    change: Partial<ServersTable>,
    details: Record<string, unknown> = {},
  ): Promise<{ server: Server }> {
    return db.transaction().execute(async (trx) => {
      const before = await loadServer(trx, id);
      if (!allowed.includes(before.state)) {
        throw new HalError(
          refusal,
          `Server ${before.name} is ${before.state}; ${action} needs ${allowed.join(' or ')}`,
          {
            details: { state: before.state },
          },
        );
      }
      const updated = await trx
        .updateTable('servers')
        .set({ ...change, updated_at: ctx.nowIso() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const server = toServer(updated);
      await auditChange(audit, trx, {
        actor,
        action,
        target: `server:${id}`,
        before: toServer(before),
        after: server,
        details,
      });
      return { server };
    });
  }

  return {
    /** Servers, by creation (oldest first); deleted ones only when asked for by state. */
    async list(
      input: ArgsOf<typeof ServersListArgs> = {},
    ): Promise<{ servers: Server[]; nextCursor: string | null }> {
      const args = parseInput(ServersListArgs, input);
      const { limit, cursor } = pageOf(args);
      let query = db
        .selectFrom('servers')
        .selectAll()
        .orderBy('id', 'asc')
        .limit(limit + 1);
      query = args.state ? query.where('state', '=', args.state) : query.where('state', '!=', 'deleted');
      if (cursor) query = query.where('id', '>', cursor);
      const { items, nextCursor } = pageResult((await query.execute()).map(toServer), limit);
      return { servers: items, nextCursor };
    },

    /** One server with its deployments and latest metrics sample. */
    async get(input: ArgsOf<typeof ServerIdArgs>) {
      const { id } = parseInput(ServerIdArgs, input);
      const server = toServer(await loadServer(db, id));
      const deployments = await db
        .selectFrom('deployments')
        .selectAll()
        .where('server_id', '=', id)
        .orderBy('module')
        .execute();
      const latest = await db
        .selectFrom('server_metrics')
        .select('data')
        .where('server_id', '=', id)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return {
        server,
        deployments: deployments.map((d) => ({
          module: d.module,
          desiredVersion: d.desired_version,
          actualVersion: d.actual_version,
          previousVersion: d.previous_version,
          updatedAt: d.updated_at,
        })),
        metrics: latest ? (JSON.parse(latest.data) as ServerMetrics) : null,
      };
    },

    /** Registers a remote server; it stays `pending` until an operator approves it. */
    async create(actor: Actor, input: ArgsOf<typeof ServerCreateArgs>): Promise<{ server: Server }> {
      const args = parseInput(ServerCreateArgs, input);
      return db.transaction().execute(async (trx) => {
        const clash = await trx
          .selectFrom('servers')
          .select('id')
          .where('name', '=', args.name)
          .where('state', '!=', 'deleted')
          .executeTakeFirst();
        if (clash) {
          throw new HalError('conflict', `A server named ${args.name} already exists`, {
            details: { id: clash.id },
          });
        }
        const now = ctx.nowIso();
        const row = await trx
          .insertInto('servers')
          .values({
            id: ctx.newId('srv'),
            name: args.name,
            role: args.role,
            kind: 'remote',
            state: 'pending',
            agent_token_hash: null,
            isolated_reason: null,
            approved_by: null,
            approved_at: null,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const server = toServer(row);
        await auditChange(audit, trx, {
          actor,
          action: 'server.create',
          target: `server:${server.id}`,
          before: null,
          after: server,
        });
        return { server };
      });
    },

    /** `pending → active`. */
    async approve(actor: Actor, input: ArgsOf<typeof ServerIdArgs>): Promise<{ server: Server }> {
      const { id } = parseInput(ServerIdArgs, input);
      return transition(actor, 'server.approve', id, ['pending'], 'server_not_pending', {
        state: 'active',
        approved_by: actor,
        approved_at: ctx.nowIso(),
      });
    },

    /** `active → maintenance` (`on: true`) or `maintenance → active` (`on: false`). */
    async setMaintenance(
      actor: Actor,
      input: ArgsOf<typeof ServerMaintenanceArgs>,
    ): Promise<{ server: Server }> {
      const { id, on } = parseInput(ServerMaintenanceArgs, input);
      return on
        ? transition(
            actor,
            'server.maintenance',
            id,
            ['active'],
            'server_not_active',
            { state: 'maintenance' },
            { on },
          )
        : transition(
            actor,
            'server.maintenance',
            id,
            ['maintenance'],
            'invalid_state',
            { state: 'active' },
            { on },
          );
    },

    /**
     * The refusals `isolate` or `delete` would give, without changing anything — so the console can refuse
     * before it asks for three confirmations.
     */
    async check(action: 'isolate' | 'delete', input: ArgsOf<typeof ServerIdArgs>): Promise<void> {
      const { id } = parseInput(ServerIdArgs, input);
      await refuseLocal(id, action === 'isolate' ? 'isolated' : 'deleted');
      const row = await loadServer(db, id);
      const allowed =
        action === 'isolate'
          ? ['pending', 'active', 'maintenance']
          : ['pending', 'active', 'maintenance', 'isolated'];
      if (!allowed.includes(row.state)) {
        throw new HalError('invalid_state', `Server ${row.name} is ${row.state}; cannot ${action} it`, {
          details: { state: row.state },
        });
      }
    },

    /** Cuts a server off (no deployments, agent refused) with a reason. HAL's own host cannot be isolated. */
    async isolate(actor: Actor, input: ArgsOf<typeof ServerIsolateArgs>): Promise<{ server: Server }> {
      const { id, reason } = parseInput(ServerIsolateArgs, input);
      await refuseLocal(id, 'isolated');
      return transition(
        actor,
        'server.isolate',
        id,
        ['pending', 'active', 'maintenance'],
        'invalid_state',
        { state: 'isolated', isolated_reason: reason },
        { reason },
      );
    },

    /** Soft-deletes a server (its history stays) and revokes its agent token. HAL's own host cannot be deleted. */
    async delete(actor: Actor, input: ArgsOf<typeof ServerIdArgs>): Promise<{ server: Server }> {
      const { id } = parseInput(ServerIdArgs, input);
      await refuseLocal(id, 'deleted');
      return transition(
        actor,
        'server.delete',
        id,
        ['pending', 'active', 'maintenance', 'isolated'],
        'invalid_state',
        { state: 'deleted', agent_token_hash: null },
      );
    },

    /**
     * Recent metrics of a server, newest first. When the server has an agent, a fresh sample is taken and
     * stored first, so the answer is never older than the call.
     */
    async metrics(
      input: ArgsOf<typeof ServerMetricsArgs>,
    ): Promise<{ current: ServerMetrics | null; history: ServerMetrics[] }> {
      const { id, limit } = parseInput(ServerMetricsArgs, input);
      const server = await loadServer(db, id);
      let current: ServerMetrics | null = null;
      const agent = ctx.agents.get(id);
      if (agent && (server.state === 'active' || server.state === 'maintenance')) {
        try {
          current = await agent.metrics();
          await recordMetrics(ctx, id, current);
        } catch (error) {
          ctx.logger.warn({ err: error, serverId: id }, 'metrics sample failed');
        }
      }
      const rows = await db
        .selectFrom('server_metrics')
        .select('data')
        .where('server_id', '=', id)
        .orderBy('id', 'desc')
        .limit(limit ?? 50)
        .execute();
      return { current, history: rows.map((r) => JSON.parse(r.data) as ServerMetrics) };
    },

    /**
     * Issues a new agent token for a remote server and returns it once; only its hash is stored. Console only:
     * the token is a credential, so no AI tool exposes this.
     */
    async issueAgentToken(
      actor: Actor,
      input: ArgsOf<typeof ServerIdArgs>,
    ): Promise<{ server: Server; token: string }> {
      const { id } = parseInput(ServerIdArgs, input);
      const token = ctx.random(32).toString('base64url');
      await refuseLocal(id, 'given an agent token');
      const { server } = await transition(
        actor,
        'server.agent_token',
        id,
        ['pending', 'active', 'maintenance'],
        'invalid_state',
        { agent_token_hash: hashToken(token) },
      );
      return { server, token };
    },

    /** The server an agent token belongs to, if that server may talk to HAL (active or in maintenance). */
    async resolveAgentToken(token: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('servers')
        .select('id')
        .where('agent_token_hash', '=', hashToken(token))
        .where('state', 'in', ['active', 'maintenance'])
        .executeTakeFirst();
      return row?.id;
    },
  };

  async function refuseLocal(id: string, verb: string): Promise<void> {
    const row = await loadServer(db, id);
    if (row.kind === 'local') {
      throw new HalError('server_is_local', `${row.name} is the host HAL runs on and cannot be ${verb}`, {
        details: { id },
      });
    }
  }
}

/** Stores one metrics sample. */
export async function recordMetrics(
  ctx: CoreContext,
  serverId: string,
  metrics: ServerMetrics,
): Promise<void> {
  await ctx.db
    .insertInto('server_metrics')
    .values({ server_id: serverId, at: metrics.at, data: JSON.stringify(metrics) })
    .execute();
}

/** The server functions' type. */
export type ServerFunctions = ReturnType<typeof createServerFunctions>;
