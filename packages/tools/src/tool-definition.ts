import { HalError, type JsonSchema, TOOL_RISKS, type ToolRisk } from '@hal-ai/spec';
import type * as v from 'valibot';
import { argsToJsonSchema, stripSchemaMarker } from './tool-json-schema.js';
import { type AnySchema, toStrictSchema } from './tool-strict-schema.js';

/** What a tool's `args` may be: a valibot object schema (validated as strict either way). */
// biome-ignore lint/suspicious/noExplicitAny: valibot's own bounds for "any object schema"
export type ToolArgsSchema = v.ObjectSchema<any, any> | v.StrictObjectSchema<any, any>;

/** The pattern every tool name follows (lower snake case, at most 64 characters). */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * What a module writes to define a tool. See {@link defineTool}.
 *
 * @typeParam TArgs - the valibot object schema of the arguments.
 * @typeParam TContext - what the host hands every call (database, operator, clock, …).
 * @typeParam TResult - what `execute` returns (JSON-serialisable: it goes back to the model).
 */
export interface ToolDefinition<TArgs extends ToolArgsSchema, TContext, TResult> {
  /** Unique name, `/^[a-z][a-z0-9_]{0,63}$/` (every provider accepts it). */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** Risk tier. Data of the registry: never settable by a model or client. */
  risk: ToolRisk;
  /** Argument schema; validated as strict (unknown keys rejected at every depth). */
  args: TArgs;
  /** REQUIRED for `high`: the target identifiers the operator must retype before execution. */
  identifiers?: (args: v.InferOutput<TArgs>) => string[];
  /** What a high action would change, shown to the operator before they confirm. */
  impact?: (context: TContext, args: v.InferOutput<TArgs>) => Promise<unknown> | unknown;
  /** Runs the tool with validated arguments. Throw `HalError` for expected failures. */
  execute: (context: TContext, args: v.InferOutput<TArgs>) => Promise<TResult> | TResult;
  /**
   * Only for `write` tools: whether this call runs at once like a read instead of becoming a proposal (e.g.
   * `web_fetch` to a host the operator allow-listed). Throw `HalError` to refuse the call outright: the caller gets
   * an error result and no proposal is made. Absent → every call is a proposal.
   */
  runsAtOnce?: (context: TContext, args: v.InferOutput<TArgs>) => Promise<boolean> | boolean;
  /**
   * Only for `write` and `high` tools: refuses a call's arguments before it becomes a proposal (throw `HalError`),
   * so no proposal holding them is ever stored and no operator is asked to approve what must not run (e.g. a
   * credential as a setting's value → `secret_not_allowed`). Absent → every valid call may be proposed.
   */
  precheck?: (context: TContext, args: v.InferOutput<TArgs>) => Promise<void> | void;
  /** Human title (MCP `annotations.title`). */
  title?: string;
  /** The same call twice has no further effect (MCP `idempotentHint`). */
  idempotent?: boolean;
  /** The tool reaches beyond HAL's own state, e.g. the web (MCP `openWorldHint`). */
  openWorld?: boolean;
}

/**
 * A defined tool, as registries, executors and declaration builders see it. Frozen: its tier
 * cannot be changed after definition. `execute`, `identifiers` and `impact` expect arguments that
 * already passed {@link validateArgs} — call tools through {@link executeTool}.
 */
export interface Tool<TContext = unknown> {
  /** Unique name. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** Risk tier: `read` runs at once; `write` and `high` are proposals an operator approves. */
  readonly risk: ToolRisk;
  /** The argument schema as defined. */
  readonly args: ToolArgsSchema;
  /** The arguments' JSON Schema, ready for providers (no `$schema`, `additionalProperties: false`). */
  readonly inputSchema: JsonSchema;
  /** Human title, if any. */
  readonly title?: string;
  /** MCP `idempotentHint`, if stated. */
  readonly idempotent?: boolean;
  /** MCP `openWorldHint`, if stated. */
  readonly openWorld?: boolean;
  /** The identifiers the operator must retype (always present on `high` tools). */
  identifiers?(args: unknown): string[];
  /** What the call would change (for the operator's first confirmation). */
  impact?(context: TContext, args: unknown): Promise<unknown>;
  /** Runs the tool with validated arguments. */
  execute(context: TContext, args: unknown): Promise<unknown>;
  /** A `write` tool's per-call choice to run at once (see {@link ToolDefinition.runsAtOnce}). */
  runsAtOnce?(context: TContext, args: unknown): Promise<boolean>;
  /** Refuses a proposal's arguments before it is stored (see {@link ToolDefinition.precheck}). */
  precheck?(context: TContext, args: unknown): Promise<void>;
}

function bad(name: unknown, message: string): never {
  const label = typeof name === 'string' ? `"${name.slice(0, 80)}"` : '(unnamed)';
  throw new HalError('validation_failed', `Tool ${label}: ${message}`);
}

function isObjectSchema(schema: unknown): schema is AnySchema {
  if (typeof schema !== 'object' || schema === null) return false;
  const node = schema as { kind?: unknown; type?: unknown; '~run'?: unknown };
  return (
    node.kind === 'schema' &&
    typeof node['~run'] === 'function' &&
    (node.type === 'object' ||
      node.type === 'strict_object' ||
      node.type === 'loose_object' ||
      node.type === 'object_with_rest')
  );
}

/**
 * Defines a tool: checks the definition, derives its JSON Schema once, and returns a frozen
 * {@link Tool}.
 *
 * @throws HalError `validation_failed` for a bad definition: a name outside
 * `/^[a-z][a-z0-9_]{0,63}$/`, an empty description, an unknown risk, args that are not a valibot
 * object schema (or cannot be expressed as JSON Schema), a missing `execute`, a `high` tool
 * without `identifiers`, `runsAtOnce` on a tool that is not `write`, or `precheck` on a `read` tool.
 *
 * @example
 * const serverGet = defineTool({
 *   name: 'hal_server_get',
 *   description: 'One server with its state and metrics.',
 *   risk: 'read',
 *   args: v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) }),
 *   execute: (hal: HalContext, { id }) => hal.servers.get(id),
 * });
 */
export function defineTool<TArgs extends ToolArgsSchema, TContext = unknown, TResult = unknown>(
  definition: ToolDefinition<TArgs, TContext, TResult>,
): Tool<TContext> {
  if (typeof definition !== 'object' || definition === null)
    bad(undefined, 'the definition must be an object');
  const { name, description, risk, args, identifiers, impact, execute, runsAtOnce, precheck } = definition;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    bad(name, 'the name must match /^[a-z][a-z0-9_]{0,63}$/');
  }
  if (typeof description !== 'string' || description.trim() === '') bad(name, 'the description is empty');
  if (!TOOL_RISKS.includes(risk)) bad(name, `unknown risk tier ${JSON.stringify(risk)}`);
  if (!isObjectSchema(args)) bad(name, 'args must be a valibot object schema (v.object / v.strictObject)');
  if (typeof execute !== 'function') bad(name, 'execute must be a function');
  if (identifiers !== undefined && typeof identifiers !== 'function')
    bad(name, 'identifiers must be a function');
  if (impact !== undefined && typeof impact !== 'function') bad(name, 'impact must be a function');
  if (runsAtOnce !== undefined && typeof runsAtOnce !== 'function')
    bad(name, 'runsAtOnce must be a function');
  if (precheck !== undefined && typeof precheck !== 'function') bad(name, 'precheck must be a function');
  if (precheck !== undefined && risk === 'read')
    bad(name, 'a read tool is never proposed: precheck is for write/high');
  // A high tool always takes the three steps; a read tool runs at once anyway.
  if (runsAtOnce !== undefined && risk !== 'write') bad(name, 'only a write tool may run at once per call');
  if (risk === 'high' && identifiers === undefined) {
    bad(name, 'a high tool needs identifiers(args): what the operator must retype');
  }
  for (const flag of ['title', 'idempotent', 'openWorld'] as const) {
    const value = definition[flag];
    const expected = flag === 'title' ? 'string' : 'boolean';
    if (value !== undefined && typeof value !== expected) bad(name, `${flag} must be a ${expected}`);
  }

  let inputSchema: JsonSchema;
  try {
    toStrictSchema(args);
    inputSchema = stripSchemaMarker(argsToJsonSchema(args));
  } catch (error) {
    bad(name, HalError.isInstance(error) ? error.message : String(error));
  }

  const tool: Tool<TContext> = {
    name,
    description,
    risk,
    args,
    inputSchema: deepFreeze(inputSchema),
    ...(definition.title === undefined ? {} : { title: definition.title }),
    ...(definition.idempotent === undefined ? {} : { idempotent: definition.idempotent }),
    ...(definition.openWorld === undefined ? {} : { openWorld: definition.openWorld }),
    ...(identifiers === undefined
      ? {}
      : {
          identifiers(values: unknown): string[] {
            const list = identifiers(values as v.InferOutput<TArgs>);
            if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) {
              throw new HalError('internal_error', `Tool "${name}": identifiers() must return strings`);
            }
            return [...list];
          },
        }),
    ...(impact === undefined
      ? {}
      : {
          async impact(context: TContext, values: unknown): Promise<unknown> {
            return impact(context, values as v.InferOutput<TArgs>);
          },
        }),
    ...(runsAtOnce === undefined
      ? {}
      : {
          async runsAtOnce(context: TContext, values: unknown): Promise<boolean> {
            return (await runsAtOnce(context, values as v.InferOutput<TArgs>)) === true;
          },
        }),
    ...(precheck === undefined
      ? {}
      : {
          async precheck(context: TContext, values: unknown): Promise<void> {
            await precheck(context, values as v.InferOutput<TArgs>);
          },
        }),
    async execute(context: TContext, values: unknown): Promise<unknown> {
      return execute(context, values as v.InferOutput<TArgs>);
    },
  };
  return Object.freeze(tool);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
