import type { JsonSchema } from '@hal-ai/spec';

// The OpenAPI 3.0 subset Gemini's `functionDeclarations` accept; anything else is rejected by the API.
const SUPPORTED = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'anyOf',
  'propertyOrdering',
]);

// Gemini only knows these string formats.
const STRING_FORMATS = new Set(['enum', 'date-time']);

/**
 * Converts a JSON Schema (draft-07, as valibot produces) to Gemini's schema subset: drops unsupported keywords
 * (`additionalProperties`, `$schema`, `default`, `examples`, `const`…), turns `const` into a one-value `enum`,
 * `oneOf` into `anyOf`, `type: [T, "null"]` into `nullable`, and keeps descriptions. Pure; never mutates its input.
 *
 * @example
 * convertToGeminiSchema({ type: 'object', properties: { q: { type: 'string', default: '' } }, additionalProperties: false })
 * // → { type: 'object', properties: { q: { type: 'string' } } }
 */
export function convertToGeminiSchema(schema: JsonSchema): JsonSchema {
  const result: JsonSchema = {};
  let nullable = schema.nullable === true;

  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== 'null');
    nullable ||= types.length < schema.type.length;
    if (types.length === 1) result.type = types[0];
    else if (types.length > 1) result.anyOf = types.map((type) => ({ type }));
  } else if (typeof schema.type === 'string') {
    if (schema.type === 'null') nullable = true;
    else result.type = schema.type;
  }

  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || key === 'nullable' || !SUPPORTED.has(key)) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      result.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, property]) => [
          name,
          convertToGeminiSchema(property),
        ]),
      );
    } else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) {
      result.items = convertToGeminiSchema(value as JsonSchema);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      result.anyOf = convertVariants(value, (nullableVariant) => {
        nullable ||= nullableVariant;
      });
    } else if (key === 'format') {
      if (typeof value === 'string' && STRING_FORMATS.has(value)) result.format = value;
    } else if (key === 'enum' && Array.isArray(value)) {
      result.enum = value.filter((entry) => entry !== null).map(String);
      if (value.includes(null)) nullable = true;
    } else {
      result[key] = value;
    }
  }

  if (Array.isArray(schema.oneOf) && result.anyOf === undefined) {
    result.anyOf = convertVariants(schema.oneOf, (nullableVariant) => {
      nullable ||= nullableVariant;
    });
  }
  if ('const' in schema && schema.const !== null && schema.const !== undefined) {
    result.enum = [String(schema.const)];
    result.type ??= 'string';
  }
  if (Array.isArray(result.anyOf) && result.anyOf.length === 1) {
    const [only] = result.anyOf as JsonSchema[];
    delete result.anyOf;
    Object.assign(result, { ...only, ...result });
  }
  if (nullable) result.nullable = true;
  return result;
}

function convertVariants(variants: unknown[], onNull: (nullable: boolean) => void): JsonSchema[] {
  const converted: JsonSchema[] = [];
  for (const variant of variants) {
    if (variant && typeof variant === 'object' && (variant as JsonSchema).type === 'null') {
      onNull(true);
      continue;
    }
    converted.push(convertToGeminiSchema(variant as JsonSchema));
  }
  return converted;
}
