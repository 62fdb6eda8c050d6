import { impactSummary } from '../core/core-impacts.js';
import { IncidentOpenArgs, IncidentResolveArgs, NoArgs } from '../core/core-schemas.js';
import { defineOperation } from './operation-definition.js';

/* Incidents (open, resolve) and the DR snapshot (SPEC §1). */

/** `incident.open`: a new open incident with a key, a title and a severity. */
export const incidentOpen = defineOperation({
  name: 'incident.open',
  tier: 'write',
  args: IncidentOpenArgs,
  identifiers: (args) => [args.key],
  describe: async (_core, args) => ({
    action: 'incident.open',
    target: `incident-key:${args.key}`,
    impact: {
      ...impactSummary('impact_incident_open', {
        severity: args.severity,
        key: args.key,
        title: args.title,
      }),
      incident: { key: args.key, title: args.title, severity: args.severity },
    },
    identifiers: [args.key],
  }),
  execute: (core, actor, args) => core.incidents.open(actor, args),
});

/** `incident.resolve`: an open incident is resolved with a note (`incident_resolved` if it already is). */
export const incidentResolve = defineOperation({
  name: 'incident.resolve',
  tier: 'write',
  args: IncidentResolveArgs,
  identifiers: (args) => [args.id],
  describe: async (_core, args) => ({
    action: 'incident.resolve',
    target: `incident:${args.id}`,
    impact: {
      ...impactSummary('impact_incident_resolve', { id: args.id }),
      change: { state: { from: 'open', to: 'resolved' } },
      resolution: args.resolution,
    },
    identifiers: [args.id],
  }),
  execute: (core, actor, args) => core.incidents.resolve(actor, args),
});

/** `dr.snapshot`: an online backup of HAL's database, hashed and verified. */
export const drSnapshot = defineOperation({
  name: 'dr.snapshot',
  tier: 'write',
  args: NoArgs,
  identifiers: () => [],
  describe: async (core) => {
    const dr = await core.dr.status();
    return {
      action: 'dr.snapshot',
      target: 'dr:snapshots',
      impact: {
        ...impactSummary('impact_dr_snapshot'),
        snapshots: { count: dr.count, lastAgeS: dr.lastAgeS, lastVerified: dr.verified },
      },
      identifiers: [],
    };
  },
  execute: (core, actor) => core.dr.snapshot(actor),
});
