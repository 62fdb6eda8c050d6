import type { JsonSchema } from '@hal-ai/spec';

/**
 * The keywords of Gemini's function-declaration `Schema` (an OpenAPI 3.0 subset) that
 * {@link convertToGeminiSchema} may emit. Anything else — `$schema`, `additionalProperties`, `const`,
 * `oneOf`, `allOf`, `$ref`, `exclusiveMinimum`, `default`, `examples`, … — is never sent: the API
 * answers 400 to some, and the server re-validates every call anyway.
 */
export const GEMINI_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'anyOf',
  'description',
  'enum',
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

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/** Formats Gemini accepts per type; others (`email`, `uri`, `uuid`, …) are refused by the API. */
const FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  integer: ['int32', 'int64'],
  number: ['float', 'double'],
};

const COPIED_STRINGS = ['title', 'description', 'pattern'] as const;
const COPIED_NUMBERS = [
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;
const MAX_REF_DEPTH = 8;

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullSchema(value: unknown): boolean {
  return (
    isNode(value) &&
    (value.type === 'null' || (Array.isArray(value.type) && value.type.every((type) => type === 'null')))
  );
}

function resolveRef(ref: string, root: Node): Node | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const definitions = root[match[1] as string];
  if (!isNode(definitions)) return undefined;
  const name = decodeURIComponent((match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~'));
  const target = definitions[name];
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
        required.push(...value.filter((name): name is string => typeof name === 'string'));
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

/** `enum`/`const` values: Gemini's enums are strings only, so other values are said in words. */
function applyValues(out: Node, values: unknown[]): boolean {
  const nullable = values.includes(null);
  const members = values.filter((value) => value !== null);
  if (members.length === 0) return nullable;
  if (members.every((value) => typeof value === 'string')) {
    out.type = 'string';
    out.enum = members;
    return nullable;
  }
  const allowed = `Allowed values: ${members.map((value) => JSON.stringify(value)).join(', ')}.`;
  out.description = typeof out.description === 'string' ? `${out.description} ${allowed}` : allowed;
  if (out.type === undefined) {
    if (members.every((value) => Number.isInteger(value))) out.type = 'integer';
    else if (members.every((value) => typeof value === 'number')) out.type = 'number';
    else if (members.every((value) => typeof value === 'boolean')) out.type = 'boolean';
  }
  return nullable;
}

/** `anyOf`/`oneOf`: a null member makes the value nullable, one member is inlined, string literals merge. */
function applyAlternatives(out: Node, alternatives: unknown[], root: Node, refDepth: number): boolean {
  const nullable = alternatives.some(isNullSchema);
  const options = alternatives
    .filter((option) => !isNullSchema(option))
    .map((option) => convert(option, root, refDepth));
  if (options.length === 1) {
    for (const [key, value] of Object.entries(options[0] as Node)) {
      if (key === 'description' && typeof out.description === 'string') continue;
      out[key] = value;
    }
  } else if (options.every((option) => Array.isArray(option.enum) && option.type === 'string')) {
    // Literal unions (`v.union([v.literal('a'), v.literal('b')])`) read best as one enum.
    if (options.length > 0) {
      out.type = 'string';
      out.enum = [...new Set(options.flatMap((option) => option.enum as string[]))];
    }
  } else {
    out.anyOf = options;
  }
  return nullable;
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
  for (const key of COPIED_STRINGS) if (typeof node[key] === 'string') out[key] = node[key];
  for (const key of COPIED_NUMBERS) if (typeof node[key] === 'number') out[key] = node[key];
  if (Array.isArray(node.propertyOrdering)) out.propertyOrdering = node.propertyOrdering;

  let nullable = node.nullable === true;
  if (typeof node.type === 'string') {
    if (node.type === 'null') nullable = true;
    else if (TYPES.has(node.type)) out.type = node.type;
  } else if (Array.isArray(node.type)) {
    const types = node.type.filter((type): type is string => typeof type === 'string');
    nullable ||= types.includes('null');
    const rest = types.filter((type) => TYPES.has(type));
    if (rest.length === 1) out.type = rest[0];
    else if (rest.length > 1) out.anyOf = rest.map((type) => ({ type }));
  }

  const values = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values !== undefined && applyValues(out, values)) nullable = true;

  const alternatives = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined;
  if (alternatives !== undefined && applyAlternatives(out, alternatives, root, refDepth)) nullable = true;

  if (isNode(node.properties)) {
    const properties: Node = {};
    for (const [key, value] of Object.entries(node.properties))
      properties[key] = convert(value, root, refDepth);
    out.properties = properties;
    out.type ??= 'object';
  }
  // Gemini refuses a required name that is not a property.
  if (Array.isArray(node.required) && isNode(out.properties)) {
    const present = out.properties;
    const required = node.required.filter((key): key is string => typeof key === 'string' && key in present);
    if (required.length > 0) out.required = required;
  }
  if (isNode(node.items)) {
    out.items = convert(node.items, root, refDepth);
    out.type ??= 'array';
  } else if (Array.isArray(node.items) && node.items.length > 0) {
    // Tuples: Gemini has no prefixItems; the first item's shape describes them.
    out.items = convert(node.items[0], root, refDepth);
  }

  if (typeof node.format === 'string' && typeof out.type === 'string') {
    if (FORMATS[out.type]?.includes(node.format)) out.format = node.format;
  }
  if (nullable) out.nullable = true;
  return out;
}

/**
 * Converts a JSON Schema (draft-07, as valibot produces it) to the subset Gemini's
 * `functionDeclarations[].parameters` accept (see {@link GEMINI_SCHEMA_KEYWORDS}): `null` unions and
 * `type: [T, "null"]` become `nullable`, `const` and string-literal unions become string `enum`s
 * (other enums are said in the description — Gemini's enums are strings), `oneOf` becomes `anyOf`,
 * `allOf` is merged, local `$ref`s are inlined (recursion is cut), `required` keeps only names that
 * are properties, and formats Gemini does not know are dropped. Pure; never mutates its input.
 *
 * @example
 * convertToGeminiSchema({ type: 'object', properties: { q: { type: 'string', default: '' } }, additionalProperties: false })
 * // → { type: 'object', properties: { q: { type: 'string' } } }
 */
export function convertToGeminiSchema(schema: JsonSchema): JsonSchema {
  return convert(schema, isNode(schema) ? schema : {}, 0);
}
