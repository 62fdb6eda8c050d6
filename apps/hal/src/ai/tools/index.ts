import { createToolRegistry, type ToolRegistry } from '@hal-ai/tools';
import { createHighTools, createWriteTools } from './hal-operation-tools.js';
import { createReadTools } from './hal-read-tools.js';
import type { HalToolContext } from './hal-tool-context.js';
import { createWebTools } from './hal-web-tools.js';

export {
  JOB_WRITE_CONTROLS,
  JobRevertArgs,
  JobWriteControlArgs,
} from '../../domain/operations/operation-jobs.js';
export {
  ConfigSetArgs,
  createHighTools,
  createWriteTools,
  OPERATION_TOOLS,
  ServerSettingSetArgs,
} from './hal-operation-tools.js';
export { ActionIdArgs, AuditListArgs, createReadTools } from './hal-read-tools.js';
export type {
  HalToolActions,
  HalToolContext,
  HalToolContextDeps,
  HalToolContextSettings,
} from './hal-tool-context.js';
export { createHalToolContext } from './hal-tool-context.js';
export {
  ACTION_STATUS_MEANINGS,
  DR_VERIFIED_MEANINGS,
  EMERGENCY_STATE_MEANINGS,
  INCIDENT_SEVERITY_MEANINGS,
  INCIDENT_STATE_MEANINGS,
  JOB_STATE_MEANINGS,
  JOB_TYPE_MEANINGS,
  MAIL_STATE_MEANINGS,
  RELEASE_STATE_MEANINGS,
  SERVER_STATE_MEANINGS,
} from './hal-tool-meanings.js';
export { PageArgs, pageOfList } from './hal-tool-paging.js';
export { HAL_TOOL_NAMES, HAL_TOOL_TIERS, type HalToolName } from './hal-tool-tiers.js';
export { createWebTools, WebFetchArgs } from './hal-web-tools.js';

/**
 * HAL's tool registry: every SPEC §4 tool, each calling the same core function as the matching console
 * route. Read tools run at once; write and high tools are for proposals (the rooms engine and the MCP
 * server decide when they run). Build a context with `createHalToolContext(deps, {actor, actions})`.
 *
 * @example
 * const tools = createHalTools();
 * const outcome = await executeTool(tools, 'hal_servers_list', { limit: 10 }, context, connection.tools);
 */
export function createHalTools(): ToolRegistry<HalToolContext> {
  return createToolRegistry<HalToolContext>([
    ...createReadTools(),
    ...createWriteTools(),
    ...createWebTools(),
    ...createHighTools(),
  ]);
}
