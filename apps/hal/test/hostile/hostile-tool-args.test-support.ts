import fc from 'fast-check';

/** The part of JSON Schema the tools' `inputSchema` use (valibot's JSON Schema output). */
export interface ToolJsonSchema {
  type?: string;
  properties?: Record<string, ToolJsonSchema>;
  required?: string[];
  enum?: unknown[];
  anyOf?: ToolJsonSchema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
}

/** How an argument set was made wrong, kept for the failure message and the figures. */
export type NearMissKind =
  | 'not_an_object'
  | 'extra_key'
  | 'prototype_key'
  | 'wrong_type'
  | 'missing_required'
  | 'out_of_bounds'
  | 'huge_string'
  | 'deep_nesting'
  | 'invalid_utf16';

/** One invalid argument set for a tool. */
export interface NearMiss {
  kind: NearMissKind;
  args: unknown;
}

const JSON_TYPES = ['string', 'integer', 'number', 'boolean', 'null', 'array', 'object'] as const;
type JsonType = (typeof JSON_TYPES)[number];

function acceptedTypes(schema: ToolJsonSchema): Set<JsonType> {
  if (schema.anyOf) return new Set(schema.anyOf.flatMap((part) => [...acceptedTypes(part)]));
  const type = (schema.type ?? 'string') as JsonType;
  // JSON Schema's `number` also takes integers.
  return new Set(type === 'number' ? ['number', 'integer'] : [type]);
}

function valueOfType(type: JsonType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return fc.string({ maxLength: 20 });
    case 'integer':
      return fc.integer();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 });
    case 'object':
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 3,
      });
  }
}

/** Values the schema accepts (bounded sizes). */
export function validValue(schema: ToolJsonSchema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(validValue));
  switch (schema.type) {
    case 'object':
      return validArgs(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default: {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.min(schema.maxLength ?? 40, 40);
      if (schema.pattern) {
        const pattern = new RegExp(schema.pattern);
        return fc
          .stringMatching(pattern)
          .filter((text) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity));
      }
      return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
    }
  }
}

/** Argument objects the tool's schema accepts: every required key, some optional ones. */
export function validArgs(schema: ToolJsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of Object.entries(properties)) record[key] = validValue(property);
  return fc.record(record, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** An object with `key` as an OWN property, as `JSON.parse` makes it (also for `__proto__`). */
function withOwnKey(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const rest = JSON.stringify(base).slice(1, -1);
  return JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}${rest ? `,${rest}` : ''}}`);
}

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF'];

/**
 * Arguments that are wrong in one way the schema must catch: not an object, an unknown key, a prototype key
 * (`__proto__`/`constructor`/`prototype`, as an own key), a value of a wrong type, a required key left out, a
 * length/range/pattern/enum miss, a huge string, nesting deeper than the validator allows, or a string that is not
 * well-formed UTF-16 (a lone surrogate).
 */
export function nearMissArgs(schema: ToolJsonSchema): fc.Arbitrary<NearMiss> {
  return fc.oneof(...Object.values(nearMissesByKind(schema)));
}

/**
 * {@link nearMissArgs} by kind: only the kinds the schema has room for (no `missing_required` without a required
 * key). With `only`, just the kinds that miss that one property (a sweep then reaches every property).
 */
export function nearMissesByKind(
  schema: ToolJsonSchema,
  only?: string,
): Partial<Record<NearMissKind, fc.Arbitrary<NearMiss>>> {
  const all = Object.entries(schema.properties ?? {});
  const names = all.map(([name]) => name);
  const properties = only === undefined ? all : all.filter(([name]) => name === only);
  const base = validArgs(schema);
  const byKind: Partial<Record<NearMissKind, fc.Arbitrary<NearMiss>>> = {};
  const whole = new Set<NearMissKind>(['not_an_object', 'extra_key', 'prototype_key', 'deep_nesting']);
  const miss = (kind: NearMissKind, args: fc.Arbitrary<unknown>) => {
    // Kinds that miss the whole object are made once, not once per property.
    if (only !== undefined && whole.has(kind)) return;
    byKind[kind] = args.map((value) => ({ kind, args: value }));
  };
  miss(
    'not_an_object',
    fc.oneof(
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
      fc.string(),
      fc.integer(),
      fc.boolean(),
    ),
  );
  miss(
    'extra_key',
    fc
      .tuple(
        base,
        fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !names.includes(key)),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([args, key, value]) => withOwnKey(args, key, value)),
  );
  miss(
    'prototype_key',
    fc
      .tuple(
        base,
        fc.constantFrom('__proto__', 'constructor', 'prototype'),
        fc.oneof(fc.constant({ polluted: true }), fc.constant({ isAdmin: true, toString: 'x' })),
      )
      .map(([args, key, value]) => withOwnKey(args, key, value)),
  );
  miss(
    'deep_nesting',
    fc
      .tuple(base, fc.integer({ min: 66, max: 400 }), fc.constantFrom(...(names.length ? names : ['deep'])))
      .map(([args, depth, key]) => ({ ...args, [key]: nested(depth) })),
  );
  if (properties.length > 0) {
    miss(
      'wrong_type',
      fc.tuple(base, fc.constantFrom(...properties)).chain(([args, [key, property]]) => {
        const accepted = acceptedTypes(property);
        const wrong = JSON_TYPES.filter(
          (type) => !accepted.has(type) && !(type === 'integer' && accepted.has('number')),
        );
        return fc
          .constantFrom(...wrong)
          .chain((type) => valueOfType(type).map((value) => ({ ...args, [key]: value })));
      }),
    );
  }
  const required = (schema.required ?? []).filter((key) => only === undefined || key === only);
  if (required.length > 0) {
    miss(
      'missing_required',
      fc.tuple(base, fc.constantFrom(...required)).map(([args, key]) => {
        const copy = { ...args };
        delete copy[key];
        return copy;
      }),
    );
  }
  const bounded = properties.filter(
    ([, property]) =>
      property.maxLength !== undefined ||
      (property.minLength ?? 0) > 0 ||
      property.pattern !== undefined ||
      property.enum !== undefined ||
      property.minimum !== undefined ||
      property.maximum !== undefined,
  );
  if (bounded.length > 0) {
    miss(
      'out_of_bounds',
      fc.tuple(base, fc.constantFrom(...bounded)).chain(([args, [key, property]]) => {
        const misses: Array<fc.Arbitrary<unknown>> = [];
        if (property.enum)
          misses.push(fc.string({ maxLength: 12 }).filter((text) => !property.enum?.includes(text)));
        if (property.maxLength !== undefined)
          misses.push(
            fc.integer({ min: 1, max: 50 }).map((extra) => 'a'.repeat((property.maxLength ?? 0) + extra)),
          );
        if ((property.minLength ?? 0) > 0) misses.push(fc.constant(''));
        if (property.pattern) {
          const pattern = new RegExp(property.pattern);
          misses.push(fc.string({ minLength: 1, maxLength: 12 }).filter((text) => !pattern.test(text)));
        }
        if (property.maximum !== undefined) misses.push(fc.integer({ min: property.maximum + 1 }));
        if (property.minimum !== undefined) misses.push(fc.integer({ max: property.minimum - 1 }));
        if (property.type === 'integer') misses.push(fc.constantFrom(1.5, Number.MAX_VALUE, -0.25));
        return fc.oneof(...misses).map((value) => ({ ...args, [key]: value }));
      }),
    );
  }
  const strings = properties.filter(
    ([, property]) => acceptedTypes(property).has('string') && !property.enum,
  );
  if (strings.length > 0) {
    miss(
      'huge_string',
      fc
        .tuple(base, fc.constantFrom(...strings), fc.integer({ min: 100_000, max: 1_200_000 }))
        .map(([args, [key], length]) => ({ ...args, [key]: 'x'.repeat(length) })),
    );
    miss(
      'invalid_utf16',
      fc
        .tuple(base, fc.constantFrom(...strings), fc.constantFrom(...LONE_SURROGATES))
        .map(([args, [key, property], surrogate]) => {
          // A value that passes every other rule of the property (its pattern aside), with one lone surrogate.
          const current = typeof args[key] === 'string' ? (args[key] as string) : '';
          const text = `${current.slice(0, Math.max(0, (property.maxLength ?? 40) - 1))}${surrogate}`;
          return { ...args, [key]: text };
        }),
    );
  }
  return byKind;
}
