import { HalError } from '@hal-ai/spec';
import * as v from 'valibot';

/** A valibot schema of any kind (the library's own bound). */
// biome-ignore lint/suspicious/noExplicitAny: valibot's own generic bound for "any schema"
export type AnySchema = v.GenericSchema<any, any>;

/**
 * Keys that must never reach a tool: assigning them onto a plain object rewrites its prototype
 * (prototype pollution), and valibot's strict objects let them through because
 * `'__proto__' in entries` is true for every object.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** `validate`: for valibot runs (objects also refuse arrays); `describe`: for JSON Schema. */
type Mode = 'validate' | 'describe';

const caches = { validate: new WeakMap(), describe: new WeakMap(), bare: new WeakMap() } satisfies Record<
  string,
  WeakMap<AnySchema, AnySchema>
>;

// valibot's object schemas accept arrays (`typeof [] === 'object'`); a JSON argument that should
// be an object must not arrive as a list that happens to satisfy an all-optional schema.
function notArray(objectSchema: AnySchema): AnySchema {
  const guard = v.custom<Record<string, unknown>>(
    (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
    (issue) => `Invalid type: Expected Object but received ${issue.received}`,
  );
  return v.pipe(guard, objectSchema) as unknown as AnySchema;
}

type Node = {
  type: string;
  async: boolean;
  message?: unknown;
  pipe?: readonly [AnySchema, ...unknown[]];
  entries?: Record<string, AnySchema>;
  rest?: AnySchema;
  wrapped?: AnySchema;
  default?: unknown;
  item?: AnySchema;
  items?: AnySchema[];
  options?: AnySchema[];
  key?: unknown;
  value?: AnySchema;
  getter?: (input: unknown) => AnySchema;
};

function refuse(path: string, message: string): never {
  throw new HalError('validation_failed', `Tool arguments${path ? ` (${path})` : ''}: ${message}`);
}

function strictEntries(
  entries: Record<string, AnySchema>,
  path: string,
  mode: Mode,
): Record<string, AnySchema> {
  const out: Record<string, AnySchema> = {};
  for (const [key, schema] of Object.entries(entries)) {
    if (FORBIDDEN_KEYS.has(key)) refuse(path, `the key "${key}" is not allowed`);
    out[key] = strict(schema, path ? `${path}.${key}` : key, mode);
  }
  return out;
}

// Rebuilds through the public factories rather than copying objects: valibot's `~run` closures
// capture their children (pipe) or read them through `this`, so a copied object would keep the
// old, non-strict behaviour.
function strict(schema: AnySchema, path: string, mode: Mode, guard = true): AnySchema {
  const cache = mode === 'describe' ? caches.describe : guard ? caches.validate : caches.bare;
  const cached = cache.get(schema);
  if (cached) return cached;
  const node = schema as unknown as Node;
  if (node.async === true) refuse(path, 'async schemas are not supported');
  const message = node.message as never;
  let result: AnySchema;
  if (node.pipe) {
    const [root, ...actions] = node.pipe;
    result = (v.pipe as unknown as (...items: unknown[]) => AnySchema)(
      strict(root, path, mode, guard),
      ...actions,
    );
  } else {
    switch (node.type) {
      // Loose objects are made strict too: unknown arguments are never accepted (SPEC §11.4).
      case 'object':
      case 'loose_object':
      case 'strict_object':
        result = v.strictObject(strictEntries(node.entries ?? {}, path, mode), message);
        if (mode === 'validate' && guard) result = notArray(result);
        break;
      case 'object_with_rest':
        result = v.objectWithRest(
          strictEntries(node.entries ?? {}, path, mode),
          strict(node.rest as AnySchema, path, mode),
          message,
        );
        break;
      case 'optional':
      case 'nullable':
      case 'nullish':
      case 'exact_optional':
      case 'undefinedable': {
        const factory = (node as unknown as { reference: (w: AnySchema, d: unknown) => AnySchema }).reference;
        result = factory(strict(node.wrapped as AnySchema, path, mode), node.default);
        break;
      }
      case 'non_optional':
      case 'non_nullable':
      case 'non_nullish': {
        const factory = (node as unknown as { reference: (w: AnySchema, m: unknown) => AnySchema }).reference;
        result = factory(strict(node.wrapped as AnySchema, path, mode), message);
        break;
      }
      case 'array':
        result = v.array(strict(node.item as AnySchema, `${path}[]`, mode), message);
        break;
      case 'tuple':
      case 'loose_tuple':
      case 'strict_tuple':
        result = v.strictTuple(
          (node.items ?? []).map((item, index) => strict(item, `${path}.${index}`, mode)),
          message,
        );
        break;
      case 'union':
        result = v.union(
          (node.options ?? []).map((option) => strict(option, path, mode)),
          message,
        );
        break;
      case 'variant':
        result = v.variant(
          node.key as string,
          // variant reads its options' `entries` directly: they stay bare object schemas.
          (node.options ?? []).map((option) => strict(option, path, mode, false)) as never,
          message,
        );
        break;
      case 'intersect':
        result = v.intersect(
          (node.options ?? []).map((option) => strict(option, path, mode)),
          message,
        );
        break;
      case 'record':
        result = v.record(node.key as never, strict(node.value as AnySchema, `${path}.*`, mode), message);
        break;
      case 'lazy': {
        const getter = node.getter as (input: unknown) => AnySchema;
        result = v.lazy((input) => strict(getter(input), path, mode));
        break;
      }
      default:
        result = schema;
    }
  }
  cache.set(schema, result);
  return result;
}

/**
 * The strict twin of an argument schema: every nested object rejects unknown keys, key names
 * that could pollute prototypes are refused. Results are cached per schema instance.
 *
 * @throws HalError `validation_failed` when the schema cannot be made strict (async schemas,
 * forbidden entry names).
 */
export function toStrictSchema(schema: AnySchema, mode: Mode = 'validate'): AnySchema {
  return strict(schema, '', mode);
}
