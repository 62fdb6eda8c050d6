import type { Generated } from 'kysely';

/** A managed machine. `kind: 'local'` is the host HAL itself runs on (created at start-up). */
export interface ServersTable {
  id: string;
  name: string;
  role: string;
  kind: 'local' | 'remote';
  state: 'pending' | 'active' | 'maintenance' | 'isolated' | 'deleted';
  /** SHA-256 (hex) of the remote agent's bearer token; the token itself is never stored. */
  agent_token_hash: string | null;
  isolated_reason: string | null;
  approved_by: string | null;
  approved_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One metrics sample of a server (JSON of `ServerMetrics`). */
export interface ServerMetricsTable {
  id: Generated<number>;
  server_id: string;
  at: string;
  data: string;
}

/** A deployable unit; created on its first release. */
export interface ModulesTable {
  name: string;
  created_at: string;
}

/** A stored artifact of `module@version`; only `approved` releases deploy. */
export interface ReleasesTable {
  id: string;
  module: string;
  version: string;
  sha256: string;
  size: number;
  artifact_path: string;
  state: 'registered' | 'approved' | 'revoked';
  registered_by: string;
  approved_by: string | null;
  approved_at: string | null;
  created_at: string;
}

/** Desired state of a module on a server, plus the actual state the agent last reported. */
export interface DeploymentsTable {
  server_id: string;
  module: string;
  desired_version: string | null;
  actual_version: string | null;
  previous_version: string | null;
  updated_at: string;
}

/** A persisted unit of work run by the job runner. */
export interface JobsTable {
  /** The HAL process whose runner claimed it, see `hal_instances`. */
  instance_id: string | null;
  id: string;
  type: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'paused';
  target: string | null;
  /** JSON of the job's arguments. */
  args: string;
  /** Why it was requested (operator/AI text). */
  reason: string | null;
  /** JSON `{code, message}` of the failure, if any. */
  error: string | null;
  /** JSON of what the job produced (and state carried between steps). */
  result: string | null;
  /** A cooperative request the runner honours between steps: `cancel` or `stop`. */
  control: string | null;
  attempts: number;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  parent_job_id: string | null;
}

/** One named step of a job with its log. */
export interface JobStepsTable {
  job_id: string;
  seq: number;
  name: string;
  state: 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';
  log: string;
  started_at: string | null;
  finished_at: string | null;
}

/** An incident (open → resolved). */
export interface IncidentsTable {
  id: string;
  key: string;
  title: string;
  severity: 'critical' | 'major' | 'minor' | 'info';
  state: 'open' | 'resolved';
  detail: string | null;
  opened_by: string;
  opened_at: string;
  resolved_by: string | null;
  resolved_at: string | null;
  resolution: string | null;
}

/** A mail service HAL watches. */
export interface MailServicesTable {
  name: string;
  kind: string;
  state: 'ok' | 'degraded' | 'down';
  detail: string | null;
  checked_at: string | null;
}

/** An emergency-recovery runbook. `steps` is a JSON array of strings. */
export interface EmergencyProceduresTable {
  key: string;
  title: string;
  state: 'ready' | 'running' | 'completed' | 'failed';
  steps: string;
  updated_at: string;
}

/** A DR snapshot: an online SQLite backup of HAL's database. */
export interface DrSnapshotsTable {
  id: string;
  path: string;
  sha256: string;
  size: number;
  created_at: string;
  created_by: string;
  verified: 'ok' | 'failed' | 'unknown';
  verified_at: string | null;
  detail: string | null;
}

/** A stored setting: global when `server_id` is null, else a per-server override. `value` is JSON. */
export interface SettingsTable {
  id: Generated<number>;
  key: string;
  server_id: string | null;
  value: string;
  updated_by: string;
  updated_at: string;
}

/** Tables of the HAL core domain (servers, releases, jobs, incidents, DR, settings). */
export interface CoreTables {
  servers: ServersTable;
  server_metrics: ServerMetricsTable;
  modules: ModulesTable;
  releases: ReleasesTable;
  deployments: DeploymentsTable;
  jobs: JobsTable;
  job_steps: JobStepsTable;
  incidents: IncidentsTable;
  mail_services: MailServicesTable;
  emergency_procedures: EmergencyProceduresTable;
  dr_snapshots: DrSnapshotsTable;
  settings: SettingsTable;
}
