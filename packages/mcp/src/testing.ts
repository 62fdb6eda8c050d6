export type {
  InspectorCall,
  StdioClientConnection,
  StdioServerCommand,
} from './mcp-testing.js';
export { connectStdioClient, inspectorCliPath, runInspector } from './mcp-testing.js';
