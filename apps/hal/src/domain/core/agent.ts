/**
 * The boundary between HAL's jobs and the machines they act on (SPEC §1 "Agents"). The machine HAL runs on
 * is a built-in local agent; remote machines run `hal agent` and speak the same interface over HTTP.
 */

/** A point-in-time reading of a server's resources. */
export interface ServerMetrics {
  /** When the reading was taken (ISO 8601). */
  at: string;
  /** CPU busy share over a short sampling window, 0–100; `null` when the machine cannot tell. */
  cpuPercent: number | null;
  /** Physical memory. */
  memory: { totalBytes: number; usedBytes: number };
  /** The file system holding the agent's data folder. */
  disk: { path: string; totalBytes: number; freeBytes: number };
  /** 1, 5 and 15 minute load averages. */
  load: [number, number, number];
  /** Seconds since the machine booted. */
  uptimeS: number;
}

/** A release artifact (`.tar.gz`) as HAL stores it. */
export interface ArtifactRef {
  module: string;
  version: string;
  /** Where the artifact lies on HAL's own machine. */
  path: string;
  /** Lower-case hex SHA-256 of the file; the agent refuses a file that does not match. */
  sha256: string;
  /** Size in bytes. */
  size: number;
}

/** Receives the human-readable log lines of one job step. */
export type StepLog = (line: string) => void;

/** What a job can ask of a server. Every method acts on real state and reports it. */
export interface NodeAgent {
  /** The server this agent acts for. */
  readonly serverId: string;
  /** Reads the machine's current metrics. */
  metrics(): Promise<ServerMetrics>;
  /** Unpacks the artifact and makes it the module's `current` release; returns the versions after the switch. */
  deploy(artifact: ArtifactRef, log: StepLog): Promise<{ current: string; previous: string | null }>; // versions
  /** Swaps `current` back to `previous`; refused with `invalid_state` when there is none. */
  rollback(module: string, log: StepLog): Promise<{ current: string; previous: string | null }>;
  /** The modules actually deployed and their versions, for reconcile. */
  modules(): Promise<Array<{ module: string; current: string | null; previous: string | null }>>; // actual state, for reconcile
  /** Checks that the module's current release is present and sound. */
  health(module: string): Promise<{ ok: boolean; detail: string }>;
}

/** Finds the agent of a server. */
export interface AgentDirectory {
  /** The agent acting for `serverId`, or `undefined` when HAL has none. */
  get(serverId: string): NodeAgent | undefined;
}
