export type { StdioOptions, StdioServing } from './mcp-stdio-transport.js';
export {
  HalStdioServerTransport,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_PARSE_ERROR,
  serveStdio,
} from './mcp-stdio-transport.js';
