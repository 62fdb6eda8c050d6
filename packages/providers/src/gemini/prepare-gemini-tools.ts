import type { ToolChoice, ToolDeclaration } from '@hal-ai/spec';
import { memoizeFrozen } from '../shared/memoize-frozen.js';
import { convertToGeminiSchema } from './convert-to-gemini-schema.js';

/** Gemini's function declaration. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

/** Gemini's tool config. */
export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
}

// A registry's frozen tool list maps to one frozen list, which the request body then encodes once.
const toGeminiTools = memoizeFrozen((tools: ToolDeclaration[]) => {
  const functionDeclarations: GeminiFunctionDeclaration[] = tools.map((tool) => {
    const parameters = convertToGeminiSchema(tool.inputSchema);
    // An object without properties is rejected; a tool without arguments simply has no parameters.
    const empty =
      parameters.type === 'object' &&
      (!parameters.properties || Object.keys(parameters.properties as object).length === 0);
    return { name: tool.name, description: tool.description, ...(empty ? {} : { parameters }) };
  });
  return [{ functionDeclarations }];
});

/** Declares HAL tools as `tools: [{functionDeclarations}]` with schemas in Gemini's subset. */
export function prepareGeminiTools(
  tools: ToolDeclaration[] | undefined,
  toolChoice: ToolChoice | undefined,
): { tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>; toolConfig?: GeminiToolConfig } {
  if (!tools || tools.length === 0) return {};
  let toolConfig: GeminiToolConfig | undefined;
  if (toolChoice === 'auto') toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
  else if (toolChoice === 'none') toolConfig = { functionCallingConfig: { mode: 'NONE' } };
  else if (toolChoice === 'required') toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  else if (toolChoice) {
    toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [toolChoice.toolName] } };
  }
  return { tools: toGeminiTools(tools), ...(toolConfig ? { toolConfig } : {}) };
}
