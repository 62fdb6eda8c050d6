// The node agents of HAL (SPEC §1 "Agents"): the built-in local agent, remote agents over HTTP, and `hal agent`.
export { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS, unpackArtifact } from './agent-archive.js';
export {
  AGENT_COMMAND_USAGE,
  type AgentCommandIo,
  agentCliCommand,
  runAgentCommand,
} from './agent-command.js';
export {
  type AgentDirectorySettings,
  createAgentDirectory,
  type HalAgents,
  type RemoteAgentsSettings,
} from './agent-directory.js';
export { createLocalAgent, type LocalAgent, type LocalAgentSettings } from './agent-local.js';
export { type AgentLoopSettings, runAgentLoop } from './agent-loop.js';
export { type AgentOs, type AgentStatfs, createMetricsReader } from './agent-metrics.js';
export { AGENT_NAME_PATTERN, assertAgentName } from './agent-names.js';
export {
  AGENT_OPERATIONS,
  type AgentCommand,
  type AgentOperation,
  type AgentOutcome,
  type AgentQueue,
  type AgentQueueSettings,
  createAgentQueue,
} from './agent-queue.js';
export { createRemoteAgent, type RemoteAgentSettings } from './agent-remote.js';
export { type AgentRoutesDeps, type AgentRoutesSettings, createAgentRoutes } from './agent-routes.js';
export {
  createAgentToken,
  createStaticAgentTokenResolver,
  hashAgentToken,
  type ResolveAgentToken,
  verifyAgentToken,
} from './agent-token.js';
