import { HalError } from '@hal-ai/spec';
import type * as v from 'valibot';
import type { HighActionDescription } from '../core/core-impacts.js';
import type { Actor } from '../core/core-support.js';
import type { HalCore } from '../core/hal-core.js';

/*
 * One definition per HAL operation (issue #14 point 2). The JSON route
 * (`domain/console-api/hal-operation-routes.ts`), the console form action (`domain/pages/pages-operations.tsx`)
 * and the AI tool (`ai/tools/hal-operation-tools.ts`) are thin adapters over it: each only says where the arguments come from (a path and a body, form fields, a
 * model's call) and how the answer is shown. The tier, the argument schema, the target identifiers, the early
 * refusal, the impact and the core call exist here once, so the three faces cannot drift apart again.
 */

/** The risk tier of an operation: `write` needs `requireRecent`; `high` adds `threeStep`. */
export type OperationTier = 'write' | 'high';

/**
 * What an operation will change, as the three steps show it (SPEC §1 `threeStep`, §14 "Three steps"):
 * `action` and `target` bind the confirm token, `impact` is shown (a `summary` line plus what changes, before →
 * after), `identifiers` are what a console operator retypes (names resolved from the records).
 */
export type OperationDescription = HighActionDescription;

/**
 * One HAL operation. `args` is the strict valibot schema every face validates with; `identifiers` names the
 * targets from the arguments alone (what a proposal stores and shows before anything is looked up); `refuse`
 * throws what the core would refuse anyway, before any confirmation is asked; `describe` loads the records and
 * says what will change; `execute` is the one core call.
 */
export interface OperationDefinition<
  Name extends string = string,
  Schema extends v.GenericSchema = v.GenericSchema,
  Result = unknown,
> {
  /** The audit action the core records, e.g. `server.isolate`. */
  name: Name;
  tier: OperationTier;
  args: Schema;
  /** The target identifiers from the arguments alone, e.g. `[serverId, 'web@1.2.0']`. */
  identifiers(args: v.InferOutput<Schema>): string[];
  /** Throws (a `HalError`) what the core would refuse, before the three steps start. */
  refuse?(core: HalCore, args: v.InferOutput<Schema>): Promise<void>;
  /** What the operation will change: the three steps (high) and proposal cards (write and high) show it. */
  describe(core: HalCore, args: v.InferOutput<Schema>): Promise<OperationDescription>;
  /** The core call, acting as `actor`. */
  execute(core: HalCore, actor: Actor, args: v.InferOutput<Schema>): Promise<Result>;
}

/** Any operation, whatever its arguments and result (what adapters and registries hold). */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds operations of every argument type.
export type AnyOperation = OperationDefinition<string, v.GenericSchema, any>;

/** The arguments an operation's functions take (the schema's output). */
export type OperationArgs<O> =
  O extends OperationDefinition<string, infer S, unknown> ? v.InferOutput<S> : never;

/** What an operation's `execute` resolves with. */
export type OperationResult<O> = O extends OperationDefinition<string, v.GenericSchema, infer R> ? R : never;

/**
 * Defines an operation (frozen: no face can change it afterwards).
 *
 * @example
 * export const serverApprove = defineOperation({
 *   name: 'server.approve', tier: 'write', args: ServerIdArgs,
 *   identifiers: (args) => [args.id],
 *   describe: async (core, args) => describeServerApprove((await core.servers.get(args)).server),
 *   execute: (core, actor, args) => core.servers.approve(actor, args),
 * });
 */
export function defineOperation<const Name extends string, Schema extends v.GenericSchema, Result>(
  definition: OperationDefinition<Name, Schema, Result>,
): OperationDefinition<Name, Schema, Result> {
  return Object.freeze({ ...definition });
}

/**
 * What an operation would do with these arguments: its early refusal runs first (so a doomed action is refused
 * before anyone confirms it), then its description. The console's three steps, the JSON route's `409
 * three_step_required`, a high tool's impact and a proposal card all come from here.
 *
 * @example
 * const { impact, identifiers } = await impactOf(operationNamed('server.isolate'), { id, reason }, core);
 */
export async function impactOf<O extends AnyOperation>(
  operation: O,
  args: OperationArgs<O>,
  core: HalCore,
): Promise<OperationDescription> {
  await operation.refuse?.(core, args);
  return operation.describe(core, args);
}

/** `internal_error` for a name that is not an operation (a programming error, never user input). */
export function unknownOperation(name: string): HalError {
  return new HalError('internal_error', `No HAL operation named "${name}"`);
}
