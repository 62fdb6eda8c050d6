import { HAL_ERROR_STATUS, HalError, type HalErrorCode } from '@hal-ai/spec';
import * as v from 'valibot';
import type { ArtifactRef, NodeAgent, ServerMetrics, StepLog } from '../core/agent.js';
import { assertAgentName } from './agent-names.js';
import type { AgentOperation, AgentQueue } from './agent-queue.js';

/** Settings of {@link createRemoteAgent}. */
export interface RemoteAgentSettings {
  /** The server whose `hal agent` answers. */
  serverId: string;
  /** The queue the agent routes serve. */
  queue: AgentQueue;
}

const finite = v.pipe(v.number(), v.finite());
const bytes = v.pipe(finite, v.minValue(0));
const version = v.nullable(v.string());

// The agent runs on another machine: what it answers is checked before HAL records it.
const metricsSchema = v.object({
  at: v.pipe(v.string(), v.isoTimestamp()),
  cpuPercent: v.nullable(v.pipe(finite, v.minValue(0), v.maxValue(100))),
  memory: v.object({ totalBytes: bytes, usedBytes: bytes }),
  disk: v.object({ path: v.pipe(v.string(), v.maxLength(4096)), totalBytes: bytes, freeBytes: bytes }),
  load: v.tuple([bytes, bytes, bytes]),
  uptimeS: bytes,
});
const switchSchema = v.object({ current: v.string(), previous: version });
const modulesSchema = v.pipe(
  v.array(v.object({ module: v.string(), current: version, previous: version })),
  v.maxLength(10_000),
);
const healthSchema = v.object({ ok: v.boolean(), detail: v.pipe(v.string(), v.maxLength(4000)) });

/** Maps an error code reported by an agent to one of ours; an unknown code becomes `internal_error`. */
function toCode(code: string): HalErrorCode {
  return Object.hasOwn(HAL_ERROR_STATUS, code) ? (code as HalErrorCode) : 'internal_error';
}

/**
 * A `NodeAgent` for a machine running `hal agent`: each call becomes a command on the queue, collected by the
 * agent's long poll and answered over HTTP. The agent's log lines reach the job's `StepLog` when it answers.
 * Calls fail with `agent_unavailable` (409) when the agent does not collect or answer in time.
 *
 * @example
 * const agent = createRemoteAgent({ serverId: 'srv-2', queue });
 * const metrics = await agent.metrics();
 */
export function createRemoteAgent(settings: RemoteAgentSettings): NodeAgent {
  const { serverId, queue } = settings;

  async function call<S extends v.GenericSchema>(
    op: AgentOperation,
    args: Record<string, unknown>,
    schema: S,
    log?: StepLog,
    artifact?: ArtifactRef,
  ): Promise<v.InferOutput<S>> {
    const outcome = await queue.request(serverId, op, args, artifact ? { artifact } : {});
    if (log) for (const line of outcome.logs) log(line);
    if (!outcome.ok) {
      const error = outcome.error ?? { code: 'internal_error', message: 'The agent reported a failure' };
      throw new HalError(toCode(error.code), `Agent of server ${serverId}: ${error.message}`, {
        details: { serverId, op },
      });
    }
    const parsed = v.safeParse(schema, outcome.result);
    if (!parsed.success) {
      throw new HalError('internal_error', `Agent of server ${serverId} answered a malformed ${op} result`, {
        details: { serverId, op },
      });
    }
    return parsed.output;
  }

  return {
    serverId,
    metrics: (): Promise<ServerMetrics> => call('metrics', {}, metricsSchema) as Promise<ServerMetrics>,
    deploy(artifact, log) {
      assertAgentName('module', artifact.module);
      assertAgentName('version', artifact.version);
      // The agent learns what to fetch and how to check it, never where the file lies on HAL's disk.
      const args = {
        module: artifact.module,
        version: artifact.version,
        sha256: artifact.sha256,
        size: artifact.size,
      };
      return call('deploy', args, switchSchema, log, artifact);
    },
    rollback(module, log) {
      assertAgentName('module', module);
      return call('rollback', { module }, switchSchema, log);
    },
    modules: () => call('modules', {}, modulesSchema),
    health(module) {
      assertAgentName('module', module);
      return call('health', { module }, healthSchema);
    },
  };
}
