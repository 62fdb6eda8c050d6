export type {
  HalMcpServerSettings,
  McpApprovalRequest,
  McpCallInfo,
  McpLogger,
} from './mcp-server.js';
export { createHalMcpServer } from './mcp-server.js';
