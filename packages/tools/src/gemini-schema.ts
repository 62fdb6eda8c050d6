import type { JsonSchema } from '@hal-ai/spec';

/**
 * The keywords of Gemini's `Schema` (an OpenAPI 3.0 subset). Anything else — `$schema`,
 * `additionalProperties`, `const`, `oneOf`, `allOf`, `$ref`, `exclusiveMinimum`, … — makes
 * `generateContent` answer 400, so {@link convertToGeminiSchema} never emits it.
 */
export const GEMINI_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'anyOf',
  'default',
  'description',
  'enum',
  'example',
  'format',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'nullable',
  'pattern',
  'properties',
  'propertyOrdering',
  'required',
  'title',
  'type',
]);

/** Gemini's type names (its `Type` enum), keyed by JSON Schema type. */
const GEMINI_TYPES: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};

/** Formats Gemini accepts per type; others (`email`, `uri`, `uuid`, …) are rejected by the API. */
const GEMINI_FORMATS: Record<string, readonly string[]> = {
  STRING: ['enum', 'date-time'],
  INTEGER: ['int32', 'int64'],
  NUMBER: ['float', 'double'],
};

const COPIED = ['title', 'description', 'pattern', 'minimum', 'maximum'] as const;
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const;
const MAX_REF_DEPTH = 8;

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullSchema(value: unknown): boolean {
  return (
    isNode(value) &&
    (value.type === 'null' || (Array.isArray(value.type) && value.type.every((t) => t === 'null')))
  );
}

function resolveRef(ref: string, root: Node): Node | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1] as string];
  if (!isNode(defs)) return undefined;
  const target = defs[decodeURIComponent((match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~'))];
  return isNode(target) ? target : undefined;
}

function mergeAllOf(parts: unknown[]): Node {
  const merged: Node = {};
  const properties: Node = {};
  const required: string[] = [];
  for (const part of parts) {
    if (!isNode(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && isNode(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value))
        required.push(...value.filter((x) => typeof x === 'string'));
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

function convert(input: unknown, root: Node, refDepth: number): Node {
  if (!isNode(input)) return {};
  let node = input;
  if (typeof node.$ref === 'string') {
    const target = refDepth < MAX_REF_DEPTH ? resolveRef(node.$ref, root) : undefined;
    // A recursive or foreign reference cannot be inlined: fall back to an unconstrained value.
    if (target === undefined)
      return typeof node.description === 'string' ? { description: node.description } : {};
    const { $ref: _ref, ...rest } = node;
    return convert({ ...target, ...rest }, root, refDepth + 1);
  }
  if (Array.isArray(node.allOf)) {
    const { allOf, ...rest } = node;
    node = mergeAllOf([rest, ...allOf]);
  }

  const out: Node = {};
  for (const key of COPIED) {
    const value = node[key];
    if (key === 'minimum' || key === 'maximum' ? typeof value === 'number' : typeof value === 'string')
      out[key] = value;
  }
  for (const key of COUNTS) {
    if (typeof node[key] === 'number') out[key] = node[key];
  }
  if ('default' in node && node.default !== undefined) out.default = node.default;
  if (Array.isArray(node.examples) && node.examples.length > 0) out.example = node.examples[0];

  let nullable = false;
  if (typeof node.type === 'string') {
    if (node.type === 'null') nullable = true;
    else if (GEMINI_TYPES[node.type]) out.type = GEMINI_TYPES[node.type];
  } else if (Array.isArray(node.type)) {
    const types = node.type.filter((t): t is string => typeof t === 'string');
    nullable = types.includes('null');
    const rest = types.filter((t) => t !== 'null' && GEMINI_TYPES[t]);
    if (rest.length === 1) out.type = GEMINI_TYPES[rest[0] as string];
    else if (rest.length > 1) out.anyOf = rest.map((t) => ({ type: GEMINI_TYPES[t] }));
  }

  const values = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values !== undefined) {
    if (values.includes(null)) nullable = true;
    const members = values.filter((value) => value !== null);
    if (members.length > 0 && members.every((value) => typeof value === 'string')) {
      out.type = 'STRING';
      out.enum = members;
    } else if (members.length > 0) {
      // Gemini enums are strings only: keep the type, say the allowed values in words.
      const allowed = `Allowed values: ${members.map((value) => JSON.stringify(value)).join(', ')}.`;
      out.description = typeof out.description === 'string' ? `${out.description} ${allowed}` : allowed;
      if (out.type === undefined) {
        const kinds = new Set(members.map((value) => (Number.isInteger(value) ? 'INTEGER' : typeof value)));
        if (kinds.size === 1 && kinds.has('INTEGER')) out.type = 'INTEGER';
        else if (members.every((value) => typeof value === 'number')) out.type = 'NUMBER';
        else if (members.every((value) => typeof value === 'boolean')) out.type = 'BOOLEAN';
      }
    }
  }

  const alternatives = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined;
  if (alternatives !== undefined) {
    if (alternatives.some(isNullSchema)) nullable = true;
    const options = alternatives
      .filter((option) => !isNullSchema(option))
      .map((option) => convert(option, root, refDepth));
    if (options.length === 1) {
      const [only] = options as [Node];
      for (const [key, value] of Object.entries(only)) {
        if (key === 'description' && typeof out.description === 'string') continue;
        out[key] = value;
      }
    } else if (options.length > 1) {
      // Literal unions (`v.union([v.literal('a'), v.literal('b')])`) read best as one enum.
      if (options.every((option) => Array.isArray(option.enum) && option.type === 'STRING')) {
        out.type = 'STRING';
        out.enum = [...new Set(options.flatMap((option) => option.enum as string[]))];
      } else {
        out.anyOf = options;
      }
    }
  }

  if (isNode(node.properties)) {
    const properties: Node = {};
    for (const [key, value] of Object.entries(node.properties))
      properties[key] = convert(value, root, refDepth);
    out.properties = properties;
    if (out.type === undefined) out.type = 'OBJECT';
  }
  if (Array.isArray(node.required) && isNode(out.properties)) {
    const present = out.properties;
    const required = node.required.filter((key): key is string => typeof key === 'string' && key in present);
    if (required.length > 0) out.required = required;
  }
  if (isNode(node.items)) {
    out.items = convert(node.items, root, refDepth);
    if (out.type === undefined) out.type = 'ARRAY';
  } else if (Array.isArray(node.items) && node.items.length > 0) {
    // Tuples: Gemini has no prefixItems; describe the first item shape.
    out.items = convert(node.items[0], root, refDepth);
  }

  if (typeof node.format === 'string' && typeof out.type === 'string') {
    if (GEMINI_FORMATS[out.type]?.includes(node.format)) out.format = node.format;
  }
  if (nullable) out.nullable = true;
  return out;
}

/**
 * Converts a JSON Schema (as {@link toJsonSchema} makes it) to the subset Gemini's
 * `functionDeclarations[].parameters` accepts: upper-case `type`s, `nullable` instead of
 * `null` unions, `const`/literal unions as string `enum`s, `oneOf` as `anyOf`, `allOf` merged,
 * local `$ref`s inlined, and every other keyword dropped (see {@link GEMINI_SCHEMA_KEYWORDS}).
 * Constraints that disappear are still enforced: the server re-validates every call.
 */
export function convertToGeminiSchema(schema: JsonSchema): JsonSchema {
  return convert(schema, isNode(schema) ? schema : {}, 0);
}
