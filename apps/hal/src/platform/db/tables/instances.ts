/** One HAL process on this database (`hal serve` or `hal mcp`), kept fresh by its heartbeat (migration 0014). */
export interface HalInstancesTable {
  id: string;
  kind: 'serve' | 'mcp';
  host: string;
  pid: number;
  version: string;
  started_at: string;
  /** Epoch ms of the last heartbeat. */
  heartbeat_at: number;
  /** Set by a clean stop; a crashed process leaves it null and simply stops heartbeating. */
  stopped_at: string | null;
  /** The instance's job runner at its last heartbeat (`{status, running, concurrency}` JSON), if it runs one. */
  jobs_json: string | null;
}

/** The instances table. */
export interface InstanceTables {
  hal_instances: HalInstancesTable;
}
