import type { ToolRisk } from '@hal-ai/spec';

/**
 * Every HAL tool and its tier, exactly as SPEC §4 lists them. `createHalTools()` is checked against this
 * table by the tests, so a tool cannot silently change tier.
 */
export const HAL_TOOL_TIERS = {
  hal_skill: 'read',
  hal_health: 'read',
  hal_overview: 'read',
  hal_servers_list: 'read',
  hal_server_get: 'read',
  hal_server_metrics: 'read',
  hal_releases_list: 'read',
  hal_jobs_list: 'read',
  hal_job_get: 'read',
  hal_incidents_list: 'read',
  hal_audit_list: 'read',
  hal_mail_services_list: 'read',
  hal_emergency_list: 'read',
  hal_dr_status: 'read',
  hal_changelog: 'read',
  hal_settings_get: 'read',
  hal_action_status: 'read',
  hal_actions_pending: 'read',
  hal_server_create: 'write',
  hal_server_approve: 'write',
  hal_server_maintenance: 'write',
  hal_incident_open: 'write',
  hal_incident_resolve: 'write',
  hal_job_control: 'write',
  hal_module_health: 'write',
  hal_dr_snapshot: 'write',
  // SPEC §10: a write tool that runs at once for allow-listed hosts (see docs/decisions.md).
  web_fetch: 'write',
  hal_server_isolate: 'high',
  hal_server_delete: 'high',
  hal_module_deploy: 'high',
  hal_module_rollback: 'high',
  hal_module_reconcile: 'high',
  hal_release_approve: 'high',
  hal_job_revert: 'high',
  hal_config_set: 'high',
  hal_settings_set: 'high',
  hal_settings_apply: 'high',
} as const satisfies Record<string, ToolRisk>;

/** The name of a HAL tool. */
export type HalToolName = keyof typeof HAL_TOOL_TIERS;

/** Every HAL tool name, read tools first, in SPEC §4's order. */
export const HAL_TOOL_NAMES = Object.keys(HAL_TOOL_TIERS) as HalToolName[];
