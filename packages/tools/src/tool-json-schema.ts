import type { JsonSchema } from '@hal-ai/spec';
import { HalError } from '@hal-ai/spec';
import { toJsonSchema as convertValibotToJsonSchema } from '@valibot/to-json-schema';
import { type AnySchema, toStrictSchema } from './tool-strict-schema.js';

/**
 * Converts an argument schema to a draft-07 JSON Schema document (with `$schema`), from its strict
 * twin so every object carries `additionalProperties: false`. Validation-only actions that JSON
 * Schema cannot express (`v.check`, `v.custom`, …) are left out: the server re-validates every
 * call with valibot anyway, the JSON Schema only guides the model.
 *
 * @throws HalError `validation_failed` when the schema holds a type JSON cannot carry (dates,
 * bigints, functions, …).
 */
export function argsToJsonSchema(schema: AnySchema): JsonSchema {
  try {
    return convertValibotToJsonSchema(toStrictSchema(schema, 'describe'), {
      typeMode: 'input',
      errorMode: 'throw',
      overrideAction: (context) => context.jsonSchema,
    }) as JsonSchema;
  } catch (error) {
    if (HalError.isInstance(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new HalError('validation_failed', `Tool arguments cannot be expressed as JSON Schema: ${reason}`, {
      cause: error,
    });
  }
}

/** Removes the `$schema` marker, which providers either ignore or reject. */
export function stripSchemaMarker(schema: JsonSchema): JsonSchema {
  const { $schema: _marker, ...rest } = schema;
  return rest;
}

/**
 * The full JSON Schema document (draft-07, with `$schema`) of a tool's arguments.
 *
 * @example
 * toJsonSchema(serverGet); // { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', … }
 */
export function toJsonSchema(tool: { readonly args: AnySchema }): JsonSchema {
  return argsToJsonSchema(tool.args);
}
