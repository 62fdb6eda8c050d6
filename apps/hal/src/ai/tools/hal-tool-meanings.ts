import type { ActionStatus } from '@hal-ai/spec';
import type {
  INCIDENT_SEVERITIES,
  JOB_STATES,
  JOB_TYPES,
  SERVER_STATES,
} from '../../domain/core/core-schemas.js';
import type {
  DrSnapshotsTable,
  EmergencyProceduresTable,
  IncidentsTable,
  MailServicesTable,
  ReleasesTable,
} from '../../platform/db/tables/core.js';

/*
 * One line per state, for tool results: a model reads `meanings` next to the data instead of guessing.
 * Each map is a `Record` over the code's own union, so a new state does not compile until it has a meaning
 * (and the skill drift test makes sure the skill document explains it too).
 */

/** Server states. */
export const SERVER_STATE_MEANINGS: Record<(typeof SERVER_STATES)[number], string> = {
  pending: 'registered, waiting for an operator to approve it; receives no deployments',
  active: 'approved and in service; receives deployments and reports metrics',
  maintenance: 'in service but paused for work; no new deployments',
  isolated: 'cut off after a problem (see isolatedReason); only an operator brings it back',
  deleted: 'removed; kept in history only',
};

/** Job states. */
export const JOB_STATE_MEANINGS: Record<(typeof JOB_STATES)[number], string> = {
  queued: 'waiting for the job runner',
  running: 'a step is executing; step logs grow',
  succeeded: 'every step finished',
  failed: 'a step failed; error and step logs say why (interrupted = HAL restarted while it ran)',
  cancelled: 'stopped by an operator before it finished',
  paused: 'held between steps; resume continues it',
};

/** Job types. */
export const JOB_TYPE_MEANINGS: Record<(typeof JOB_TYPES)[number], string> = {
  deploy: 'verify the artifact, deploy it through the server agent, record the actual version',
  rollback: 'switch a module back to its previous version',
  reconcile: 'bring actual versions in line with desired ones',
  settings_apply: 'apply effective settings to HAL and servers',
  module_health: "check a module's health on a server",
};

/** Release states. */
export const RELEASE_STATE_MEANINGS: Record<ReleasesTable['state'], string> = {
  registered: 'uploaded with a matching SHA-256; not yet allowed to deploy',
  approved: 'approved by an operator; may be deployed',
  revoked: 'withdrawn; may not be deployed',
};

/** Incident severities. */
export const INCIDENT_SEVERITY_MEANINGS: Record<(typeof INCIDENT_SEVERITIES)[number], string> = {
  critical: 'service down or data at risk; act now',
  major: 'significant degradation for many users',
  minor: 'limited impact or a workaround exists',
  info: 'worth recording, no impact',
};

/** Incident states. */
export const INCIDENT_STATE_MEANINGS: Record<IncidentsTable['state'], string> = {
  open: 'being handled',
  resolved: 'closed with a resolution note',
};

/** Mail service states. */
export const MAIL_STATE_MEANINGS: Record<MailServicesTable['state'], string> = {
  ok: 'delivering normally',
  degraded: 'delivering slowly or partially',
  down: 'not delivering',
};

/** Emergency procedure states. */
export const EMERGENCY_STATE_MEANINGS: Record<EmergencyProceduresTable['state'], string> = {
  ready: 'can be started by an operator',
  running: 'in progress',
  completed: 'finished successfully',
  failed: 'stopped with an error; read its steps',
};

/** DR snapshot verification states. */
export const DR_VERIFIED_MEANINGS: Record<DrSnapshotsTable['verified'], string> = {
  ok: 'the snapshot opens and passes integrity_check',
  failed: 'the snapshot is damaged; take a new one',
  unknown: 'not checked yet (or there is no snapshot)',
};

/** Proposal (action) statuses. */
export const ACTION_STATUS_MEANINGS: Record<ActionStatus, string> = {
  proposed: 'waiting for an operator to approve or reject it; nothing has changed yet',
  executing: 'approved; the tool is running now',
  executed: 'ran; result holds what HAL did',
  failed: 'approved but the tool failed; error says why — nothing may be assumed done',
  rejected: 'an operator rejected it; it never ran',
  cancelled: 'withdrawn (e.g. the conversation was reset); it never ran',
};

/** The meanings of the states that occur in `values` (unknown ones are left out). */
export function meaningsOf<K extends string>(
  table: Record<K, string>,
  values: Iterable<string | null | undefined>,
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const value of values) {
    if (typeof value === 'string' && Object.hasOwn(table, value)) out[value as K] = table[value as K];
  }
  return out;
}
