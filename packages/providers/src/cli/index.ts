/**
 * `@hal-ai/providers/cli` — local CLI adapters (Claude Code, Codex): discovery, login status and a
 * `ModelProvider` that runs the CLI per call. Node-only; the root entry stays browser-safe.
 */
export type { ClaudeArgsSettings, ClaudeResultMessage } from './cli-claude.js';
export { buildClaudeArgs, findClaudeResult, interpretClaudeRun } from './cli-claude.js';
export type { CodexArgsSettings, CodexEvent } from './cli-codex.js';
export { buildCodexArgs, CodexEventReader, parseCodexLine } from './cli-codex.js';
export type {
  CliCandidate,
  CliDiscoverySettings,
  CliFileSystem,
  CliLocation,
  CliSource,
  CliTool,
} from './cli-discovery.js';
export {
  CLI_SYSTEM_DIRS,
  CLI_USER_DIRS,
  discoverCli,
  listCliCandidates,
  nodeCliFileSystem,
} from './cli-discovery.js';
export type { CliProviderSettings } from './cli-language-model.js';
export { createCliProvider } from './cli-language-model.js';
export type { CliMcpResolver, CliMcpServer } from './cli-mcp.js';
export {
  buildClaudeMcpArgs,
  buildClaudeMcpConfig,
  buildCodexMcpArgs,
  CLI_MCP_SERVER_NAME,
} from './cli-mcp.js';
export type { CliModelList, CliModelListSettings, CliModelSource } from './cli-model-list.js';
export { parseCodexDefaultModel, parseCodexModelsCache, readCliModelList } from './cli-model-list.js';
export { CLAUDE_CODE_MODELS, CLI_DEFAULT_MODEL, CLI_LOGIN_COMMAND, CLI_LOGIN_HINT } from './cli-models.js';
export type {
  CliEnvironmentSettings,
  CliProcessResult,
  CliSpawn,
  RunCliProcessSettings,
} from './cli-process.js';
export { buildCliEnvironment, CLI_BASE_ENV_NAMES, runCliProcess } from './cli-process.js';
export type { FlattenedCliPrompt } from './cli-prompt.js';
export { flattenPromptForCli } from './cli-prompt.js';
export type { CliStatus, CliStatusSettings } from './cli-status.js';
export { getCliStatus } from './cli-status.js';
