import type { AgentDirectory, NodeAgent } from '../core/agent.js';
import type { AgentQueue } from './agent-queue.js';
import { createRemoteAgent } from './agent-remote.js';
import type { AgentRoutesSettings } from './agent-routes.js';

/** Remote agents: the queue they share, the token lookup the routes use, and which servers are remote. */
export interface RemoteAgentsSettings extends AgentRoutesSettings {
  queue: AgentQueue;
  /** Whether `serverId` is a registered remote server (default: every id that is not the local one). */
  accepts?: (serverId: string) => boolean;
}

/** Settings of {@link createAgentDirectory}. */
export interface AgentDirectorySettings {
  /** The built-in agent of the machine HAL runs on. */
  local: NodeAgent;
  /** Remote agents over HTTP; without it only the local server has an agent. */
  remote?: RemoteAgentsSettings;
}

/** HAL's agents: a directory for jobs, plus what `createAgentRoutes` serves (`HalRuntime.agents`). */
export interface HalAgents extends AgentDirectory {
  readonly local: NodeAgent;
  readonly remote: RemoteAgentsSettings | undefined;
}

/**
 * Finds the agent of a server: the local agent for its own server id, else a remote agent speaking through
 * the queue (made once per server and reused).
 *
 * @example
 * const agents = createAgentDirectory({
 *   local: createLocalAgent({ serverId, dataDir }),
 *   remote: { queue: createAgentQueue(), resolveAgentToken: (token) => core.servers.byAgentToken(token) },
 * });
 * const agent = agents.get(serverId);
 */
export function createAgentDirectory(settings: AgentDirectorySettings): HalAgents {
  const remotes = new Map<string, NodeAgent>();
  return {
    local: settings.local,
    remote: settings.remote,
    get(serverId) {
      if (serverId === settings.local.serverId) return settings.local;
      const remote = settings.remote;
      if (!remote || (remote.accepts && !remote.accepts(serverId))) return undefined;
      let agent = remotes.get(serverId);
      if (!agent) {
        agent = createRemoteAgent({ serverId, queue: remote.queue });
        remotes.set(serverId, agent);
      }
      return agent;
    },
  };
}
