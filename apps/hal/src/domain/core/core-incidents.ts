import { HalError } from '@hal-ai/spec';
import type { Selectable } from 'kysely';
import type {
  EmergencyProceduresTable,
  IncidentsTable,
  MailServicesTable,
} from '../../platform/db/tables/core.js';
import { type ArgsOf, IncidentOpenArgs, IncidentResolveArgs, IncidentsListArgs } from './core-schemas.js';
import {
  type Actor,
  auditChange,
  type CoreContext,
  loadRecord,
  pageOf,
  pageResult,
  parseInput,
} from './core-support.js';

/** An incident as clients see it. */
export interface Incident {
  id: string;
  key: string;
  title: string;
  severity: IncidentsTable['severity'];
  state: IncidentsTable['state'];
  detail: string | null;
  openedBy: string;
  openedAt: string;
  resolvedBy: string | null;
  resolvedAt: string | null;
  resolution: string | null;
}

/** A watched mail service. */
export interface MailService {
  name: string;
  kind: string;
  state: MailServicesTable['state'];
  detail: string | null;
  checkedAt: string | null;
}

/** An emergency-recovery procedure. */
export interface EmergencyProcedure {
  key: string;
  title: string;
  state: EmergencyProceduresTable['state'];
  steps: string[];
  updatedAt: string;
}

function toIncident(row: Selectable<IncidentsTable>): Incident {
  return {
    id: row.id,
    key: row.key,
    title: row.title,
    severity: row.severity,
    state: row.state,
    detail: row.detail,
    openedBy: row.opened_by,
    openedAt: row.opened_at,
    resolvedBy: row.resolved_by,
    resolvedAt: row.resolved_at,
    resolution: row.resolution,
  };
}

/** Incidents: open → resolved. */
export function createIncidentFunctions(ctx: CoreContext) {
  const { db, audit } = ctx;
  return {
    /** Incidents, newest first. */
    async list(
      input: ArgsOf<typeof IncidentsListArgs> = {},
    ): Promise<{ incidents: Incident[]; nextCursor: string | null }> {
      const args = parseInput(IncidentsListArgs, input);
      const { limit, cursor } = pageOf(args);
      let query = db
        .selectFrom('incidents')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(limit + 1);
      if (args.state) query = query.where('state', '=', args.state);
      if (args.severity) query = query.where('severity', '=', args.severity);
      if (cursor) query = query.where('id', '<', cursor);
      const { items, nextCursor } = pageResult((await query.execute()).map(toIncident), limit);
      return { incidents: items, nextCursor };
    },

    /** Opens an incident. */
    async open(actor: Actor, input: ArgsOf<typeof IncidentOpenArgs>): Promise<{ incident: Incident }> {
      const args = parseInput(IncidentOpenArgs, input);
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('incidents')
          .values({
            id: ctx.newId('inc'),
            key: args.key,
            title: args.title,
            severity: args.severity,
            state: 'open',
            detail: args.detail ?? null,
            opened_by: actor,
            opened_at: ctx.nowIso(),
            resolved_by: null,
            resolved_at: null,
            resolution: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const incident = toIncident(row);
        await auditChange(audit, trx, {
          actor,
          action: 'incident.open',
          target: `incident:${row.id}`,
          before: null,
          after: incident,
        });
        return { incident };
      });
    },

    /** `open → resolved` with a resolution; resolving twice is refused (`incident_resolved`). */
    async resolve(actor: Actor, input: ArgsOf<typeof IncidentResolveArgs>): Promise<{ incident: Incident }> {
      const args = parseInput(IncidentResolveArgs, input);
      return db.transaction().execute(async (trx) => {
        const before = await loadRecord(trx, 'incidents', 'incident', args.id);
        if (before.state === 'resolved') {
          throw new HalError(
            'incident_resolved',
            `Incident ${before.key} was already resolved at ${before.resolved_at}`,
          );
        }
        const row = await trx
          .updateTable('incidents')
          .set({
            state: 'resolved',
            resolved_by: actor,
            resolved_at: ctx.nowIso(),
            resolution: args.resolution,
          })
          .where('id', '=', args.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const incident = toIncident(row);
        await auditChange(audit, trx, {
          actor,
          action: 'incident.resolve',
          target: `incident:${args.id}`,
          before: toIncident(before),
          after: incident,
        });
        return { incident };
      });
    },
  };
}

/** Mail services HAL watches. */
export function createMailFunctions(ctx: CoreContext) {
  return {
    /** Every mail service with its last known state. */
    async list(): Promise<{ mailServices: MailService[] }> {
      const rows = await ctx.db.selectFrom('mail_services').selectAll().orderBy('name').execute();
      return {
        mailServices: rows.map((r) => ({
          name: r.name,
          kind: r.kind,
          state: r.state,
          detail: r.detail,
          checkedAt: r.checked_at,
        })),
      };
    },
  };
}

/** Emergency-recovery procedures. */
export function createEmergencyFunctions(ctx: CoreContext) {
  return {
    /** Every procedure with its steps. */
    async list(): Promise<{ procedures: EmergencyProcedure[] }> {
      const rows = await ctx.db.selectFrom('emergency_procedures').selectAll().orderBy('key').execute();
      return {
        procedures: rows.map((r) => ({
          key: r.key,
          title: r.title,
          state: r.state,
          steps: JSON.parse(r.steps) as string[],
          updatedAt: r.updated_at,
        })),
      };
    },
  };
}
