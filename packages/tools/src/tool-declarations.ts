import type { JsonSchema } from '@hal-ai/spec';
import type { Tool } from './tool-definition.js';

/**
 * What {@link toMcpTools} reads from a tool (a {@link Tool} or a `ToolDeclaration` with its risk). Each
 * model provider's own declaration format belongs to its adapter in `@hal-ai/providers`.
 */
export type DeclarableTool = Pick<Tool<never>, 'name' | 'description' | 'inputSchema'> &
  Partial<Pick<Tool<never>, 'risk' | 'title' | 'idempotent' | 'openWorld'>>;

/**
 * An object JSON Schema as MCP's `inputSchema` requires it: `type: 'object'` always, `properties` a map
 * of schemas (the shape the official SDK type-checks).
 */
export type ObjectJsonSchema = {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
};

/** MCP tool annotations (hints for clients; never a security boundary — HAL enforces tiers itself). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One MCP `tools/list` entry. */
export interface McpToolDeclaration {
  name: string;
  description: string;
  inputSchema: ObjectJsonSchema;
  annotations: McpToolAnnotations;
}

// Each declaration is its own copy: a caller that edits one never edits the registry.
function objectSchema(tool: DeclarableTool): ObjectJsonSchema {
  const { $schema: _marker, ...schema } = structuredClone(tool.inputSchema) as JsonSchema;
  return { ...schema, type: 'object' } as ObjectJsonSchema;
}

/**
 * MCP `tools/list` entries. Annotations follow the tier: read → read-only, not destructive;
 * write → not read-only, not destructive; high → destructive. A declaration without a risk is
 * treated as high (the safe side).
 */
export function toMcpTools(tools: readonly DeclarableTool[]): McpToolDeclaration[] {
  return tools.map((tool) => {
    const risk = tool.risk ?? 'high';
    const annotations: McpToolAnnotations = {
      ...(tool.title === undefined ? {} : { title: tool.title }),
      readOnlyHint: risk === 'read',
      destructiveHint: risk === 'high',
      ...(tool.idempotent === undefined ? {} : { idempotentHint: tool.idempotent }),
      ...(tool.openWorld === undefined ? {} : { openWorldHint: tool.openWorld }),
    };
    return { name: tool.name, description: tool.description, inputSchema: objectSchema(tool), annotations };
  });
}
