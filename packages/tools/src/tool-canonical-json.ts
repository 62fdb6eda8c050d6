import { HalError } from '@hal-ai/spec';

function write(value: unknown, stack: Set<object>): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return write((value as { toJSON: () => unknown }).toJSON(), stack);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // JSON.stringify gives ECMAScript's shortest round-trip form (as RFC 8785 asks), -0 → 0, NaN/±Infinity → null.
      return JSON.stringify(value);
    case 'bigint':
      throw new HalError('validation_failed', 'A canonical JSON value cannot contain a bigint');
    case 'object': {
      if (stack.has(value as object))
        throw new HalError('validation_failed', 'A canonical JSON value cannot contain a circular reference');
      stack.add(value as object);
      let out: string;
      if (Array.isArray(value)) {
        out = `[${value.map((item) => write(item, stack) ?? 'null').join(',')}]`;
      } else {
        const parts: string[] = [];
        // Default sort = UTF-16 code units, the order RFC 8785 prescribes.
        for (const key of Object.keys(value as object).sort()) {
          const item = write((value as Record<string, unknown>)[key], stack);
          if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
        }
        out = `{${parts.join(',')}}`;
      }
      stack.delete(value as object);
      return out;
    }
    default:
      // undefined, functions and symbols vanish, as in JSON.stringify.
      return undefined;
  }
}

/**
 * Stable JSON of a value: object keys sorted (UTF-16 order), no whitespace, `undefined` members
 * dropped (in arrays: `null`), `toJSON` honoured, non-finite numbers as `null` — the RFC 8785 (JCS)
 * form for JSON data. Two values that mean the same thing give the same string whatever their key
 * order, so it is what HAL hashes: tool arguments, audit entries, confirm tokens.
 *
 * @throws HalError `validation_failed` for a bigint or a circular reference.
 * @example
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set()) ?? 'null';
}

/** {@link canonicalJson} under the name the argument binding uses (the same function). */
export const canonicalArgs: (value: unknown) => string = canonicalJson;
