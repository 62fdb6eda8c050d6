import { HalError } from '@hal-ai/spec';
import type { ToolRegistry, ToolSelection } from './tool-registry.js';
import { type ValidationIssue, validateArgs } from './tool-validation.js';

/** The result of {@link executeTool}: the tool's output, or an error fit to hand back to the model. */
export type ToolOutcome =
  | { ok: true; output: unknown }
  | { ok: false; error: { code: string; message: string; issues?: ValidationIssue[] } };

function label(name: unknown): string {
  return JSON.stringify(typeof name === 'string' ? name.slice(0, 64) : String(name).slice(0, 64));
}

function issuesOf(error: HalError): ValidationIssue[] | undefined {
  const issues = error.details.issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.filter(
    (issue): issue is ValidationIssue =>
      typeof issue === 'object' &&
      issue !== null &&
      typeof issue.path === 'string' &&
      typeof issue.message === 'string',
  );
}

/**
 * Looks a tool up, checks the selection, re-validates the arguments and runs it. Never throws:
 *
 * - unknown tool → `not_found`; disabled by `selection` → `forbidden`; invalid arguments →
 *   `validation_failed` with `issues` — in all three cases the tool does NOT run;
 * - a thrown `HalError` → its code and message (and its `details.issues`, if any);
 * - anything else → `internal_error` with a short, generic message (internals are not leaked to a model).
 *
 * Policy (whether a write or high tool may run now) is the caller's business: rooms and the MCP
 * server turn those calls into proposals before ever calling this.
 *
 * @example
 * const outcome = await executeTool(registry, call.toolName, call.input, context, connection.tools);
 * if (!outcome.ok) return toolError(outcome.error);
 */
export async function executeTool<C>(
  registry: ToolRegistry<C>,
  name: string,
  input: unknown,
  context: C,
  selection?: ToolSelection,
): Promise<ToolOutcome> {
  try {
    const tool = registry.get(name);
    if (tool === undefined) {
      return { ok: false, error: { code: 'not_found', message: `Unknown tool ${label(name)}` } };
    }
    if (selection !== undefined && !registry.isEnabled(name, selection)) {
      return {
        ok: false,
        error: { code: 'forbidden', message: `Tool ${label(name)} is not enabled for this connection` },
      };
    }
    const validated = validateArgs(tool, input);
    if (!validated.ok) {
      return {
        ok: false,
        error: {
          code: 'validation_failed',
          message: `Invalid arguments for ${label(name)}`,
          issues: validated.issues,
        },
      };
    }
    const output = await tool.execute(context, validated.value);
    return { ok: true, output };
  } catch (error) {
    if (HalError.isInstance(error)) {
      const issues = issuesOf(error);
      return {
        ok: false,
        error: { code: error.code, message: String(error.message), ...(issues ? { issues } : {}) },
      };
    }
    return {
      ok: false,
      error: { code: 'internal_error', message: `Tool ${label(name)} failed unexpectedly` },
    };
  }
}
