export { argsHash, sha256Hex } from './tool-args-hash.js';
export { canonicalArgs, canonicalJson } from './tool-canonical-json.js';
export type {
  DeclarableTool,
  McpToolAnnotations,
  McpToolDeclaration,
  ObjectJsonSchema,
} from './tool-declarations.js';
export { toMcpTools } from './tool-declarations.js';
export type { Tool, ToolArgsSchema, ToolDefinition } from './tool-definition.js';
export { defineTool, TOOL_NAME_PATTERN } from './tool-definition.js';
export type { ToolOutcome } from './tool-execution.js';
export { executeTool } from './tool-execution.js';
export { toJsonSchema } from './tool-json-schema.js';
export type { ToolRegistry, ToolSelection } from './tool-registry.js';
export { createToolRegistry } from './tool-registry.js';
export type { AnySchema } from './tool-strict-schema.js';
export { FORBIDDEN_KEYS, toStrictSchema } from './tool-strict-schema.js';
export type { ValidateResult, ValidationIssue } from './tool-validation.js';
export { validateArgs } from './tool-validation.js';
