/** Strings at least this long are kept encoded (a system prompt that starts with the skill document). */
const LONG_STRING = 4096;
/**
 * Characters of encoded long strings kept, least recently used first out: system prompts (one per connection and
 * room, roughly) and long history messages, which every later turn of a conversation sends again.
 */
const LONG_STRING_BUDGET = 16 * 1024 * 1024;
/** Below this depth a request body is walked node by node; deeper values go to `JSON.stringify` whole. */
const MAX_DEPTH = 6;

const frozenCache = new WeakMap<object, string>();

interface EncodedString {
  value: string;
  encoded: string;
}

/** Encoded long strings by {@link fingerprint}; a hit is confirmed by comparing the whole value. */
const stringCache = new Map<string, EncodedString>();
let stringCacheSize = 0;
/** Characters of a long string's end in its fingerprint: where system prompts differ (identity, room, context). */
const FINGERPRINT_TAIL = 2048;

/**
 * The key of a long string in the cache. Not the string itself: V8 hashes a string longer than 16,383 characters by
 * its length alone, so long strings of one length share one bucket of a `Map`, and a lookup compares the key with
 * each of them in full. System prompts all start with the same ~24 KB skill document and often have the same length
 * (connections `m01`…`m64`), so with 64 rooms every lookup compared ~64 × 24 KB (~0.1–1 ms per request body).
 * Two different strings with one fingerprint are still told apart by the comparison on a hit; they only evict
 * each other.
 */
function fingerprint(value: string): string {
  return `${value.length}:${value.slice(0, 64)}${value.slice(-FINGERPRINT_TAIL)}`;
}

function encodedString(value: string): string {
  const key = fingerprint(value);
  const cached = stringCache.get(key);
  stringCache.delete(key);
  if (cached !== undefined) {
    if (cached.value === value) {
      // Most recently used last.
      stringCache.set(key, cached);
      return cached.encoded;
    }
    stringCacheSize -= cached.encoded.length;
  }
  const encoded = JSON.stringify(value);
  stringCache.set(key, { value, encoded });
  stringCacheSize += encoded.length;
  for (const [oldest, entry] of stringCache) {
    if (stringCacheSize <= LONG_STRING_BUDGET) break;
    stringCache.delete(oldest);
    stringCacheSize -= entry.encoded.length;
  }
  return encoded;
}

/** Values found frozen all the way down: only those can never change, so only those are kept encoded. */
const deeplyFrozen = new WeakSet<object>();

function isDeeplyFrozen(value: object): boolean {
  if (deeplyFrozen.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  for (const item of Object.values(value)) {
    if (item !== null && typeof item === 'object' && !isDeeplyFrozen(item)) return false;
  }
  deeplyFrozen.add(value);
  return true;
}

function encodedFrozen(value: object): string | undefined {
  let cached = frozenCache.get(value);
  if (cached === undefined) {
    if (!isDeeplyFrozen(value)) return undefined;
    cached = JSON.stringify(value) ?? 'null';
    frozenCache.set(value, cached);
  }
  return cached;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !('toJSON' in value);
}

function walk(value: unknown, out: string[], depth: number): void {
  if (typeof value === 'string' && value.length >= LONG_STRING) {
    out.push(encodedString(value));
    return;
  }
  if (value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
    if (Object.isFrozen(value) && (Array.isArray(value) || isPlainObject(value))) {
      const encoded = encodedFrozen(value);
      if (encoded) {
        out.push(encoded);
        return;
      }
    }
    if (Array.isArray(value)) {
      out.push('[');
      for (let index = 0; index < value.length; index += 1) {
        if (index > 0) out.push(',');
        const item = value[index];
        // As JSON.stringify: what has no JSON form is null inside an array.
        walk(
          item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : item,
          out,
          depth + 1,
        );
      }
      out.push(']');
      return;
    }
    if (isPlainObject(value)) {
      out.push('{');
      let first = true;
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        out.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
        first = false;
        walk(item, out, depth + 1);
      }
      out.push('}');
      return;
    }
  }
  out.push(JSON.stringify(value) ?? 'null');
}

/**
 * @internal A request body as JSON text, exactly what `JSON.stringify` would give, but the parts that repeat from
 * call to call are encoded once: deeply frozen arrays and objects (the tool declarations: the same frozen list for every
 * turn of a connection) by identity, and long strings (a system prompt that starts with the ~24 KB skill document)
 * by value. A model turn's request is ~45 KB, most of it those parts; escaping them again on every call was a large
 * share of the work before a request could leave. Only plain data is walked; anything else (a `toJSON`, a class
 * instance) goes to `JSON.stringify` as it is.
 *
 * Text, not a `Buffer`: the socket encodes a string into memory it frees as soon as it is written, and reuses,
 * while a fresh 45 KB `Buffer` per request is new memory for the kernel to map and for the garbage collector to
 * find (measured here: 30–60 µs less CPU per request as text, sender and receiver together).
 */
export function encodeJsonBody(value: unknown): string {
  const out: string[] = [];
  walk(value, out, 0);
  return out.join('');
}

/**
 * @internal Memoizes `build` by the identity of a FROZEN input (a tool list from a registry is frozen and reused),
 * freezing the result deeply so it can be reused — and encoded once by {@link encodeJsonBody}. A mutable input is
 * built afresh each time.
 */
export function memoizeFrozen<In extends object, Out extends object>(
  build: (input: In) => Out,
): (input: In) => Out {
  const cache = new WeakMap<In, Out>();
  return (input) => {
    if (!Object.isFrozen(input)) return build(input);
    let built = cache.get(input);
    if (built === undefined) {
      built = deepFreeze(build(input));
      cache.set(input, built);
    }
    return built;
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
