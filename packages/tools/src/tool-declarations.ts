import type { JsonSchema } from '@hal-ai/spec';
import { convertToGeminiSchema } from './gemini-schema.js';
import type { Tool } from './tool-definition.js';

/** What the declaration builders read from a tool (a {@link Tool} or a `ToolDeclaration` with its risk). */
export type DeclarableTool = Pick<Tool<never>, 'name' | 'description' | 'inputSchema'> &
  Partial<Pick<Tool<never>, 'risk' | 'title' | 'idempotent' | 'openWorld'>>;

/**
 * An object JSON Schema as Anthropic (`input_schema`) and MCP (`inputSchema`) require it: `type: 'object'`
 * always, `properties` a map of schemas (the shape both official SDKs type-check).
 */
export type ObjectJsonSchema = {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
};

/** Anthropic Messages `input_schema`. */
export type AnthropicInputSchema = ObjectJsonSchema;

/** One Anthropic Messages tool (`tools[]`). */
export interface AnthropicToolDeclaration {
  name: string;
  description: string;
  input_schema: AnthropicInputSchema;
}

/** One OpenAI Chat Completions tool (`tools[]`); also OpenRouter and other compatible services. */
export interface OpenAIToolDeclaration {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

/** One Gemini function declaration. `parameters` is left out for a tool without arguments (Gemini rejects an empty OBJECT). */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: JsonSchema;
}

/** One Gemini `tools[]` entry. */
export interface GeminiToolDeclaration {
  functionDeclarations: GeminiFunctionDeclaration[];
}

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

// Every builder hands out its own copy: a caller that edits a declaration never edits the registry.
function objectSchema(tool: DeclarableTool): ObjectJsonSchema {
  const { $schema: _marker, ...schema } = structuredClone(tool.inputSchema) as JsonSchema;
  return { ...schema, type: 'object' } as ObjectJsonSchema;
}

/**
 * Anthropic Messages `tools`.
 *
 * @example
 * await anthropic.messages.create({ model, max_tokens, messages, tools: toAnthropicTools(registry.select(selection)) });
 */
export function toAnthropicTools(tools: readonly DeclarableTool[]): AnthropicToolDeclaration[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: objectSchema(tool),
  }));
}

/**
 * OpenAI Chat Completions `tools` (function tools, non-strict: optional arguments stay optional).
 *
 * @example
 * await openai.chat.completions.create({ model, messages, tools: toOpenAITools(registry.select(selection)) });
 */
export function toOpenAITools(tools: readonly DeclarableTool[]): OpenAIToolDeclaration[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: objectSchema(tool) },
  }));
}

/**
 * Gemini `tools`: one entry holding every function declaration, parameters converted to
 * Gemini's schema subset ({@link convertToGeminiSchema}). No tools → an empty array (Gemini
 * rejects an entry with no declarations).
 */
export function toGeminiTools(tools: readonly DeclarableTool[]): GeminiToolDeclaration[] {
  if (tools.length === 0) return [];
  return [
    {
      functionDeclarations: tools.map((tool) => {
        const parameters = convertToGeminiSchema(objectSchema(tool));
        const properties = parameters.properties;
        const empty =
          typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0;
        return {
          name: tool.name,
          description: tool.description,
          ...(empty ? {} : { parameters }),
        };
      }),
    },
  ];
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
