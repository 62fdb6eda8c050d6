import { LRUCache } from 'lru-cache';

/** Strings at least this long are kept encoded (a system prompt that starts with the skill document). */
const LONG_STRING = 4096;
/** Below this depth a request body is walked node by node; deeper values go to `JSON.stringify` whole. */
const MAX_DEPTH = 6;
/** Characters of a long string's end in its fingerprint: where system prompts differ (identity, room, context). */
const FINGERPRINT_TAIL = 2048;

/** Settings of {@link createProviderBodyEncoder}. */
export interface ProviderBodyEncoderSettings {
  /**
   * Characters of encoded long strings kept, least recently used out (default 16 M): system prompts (one per
   * connection and room, roughly) and long history messages, which every later turn sends again.
   */
  maxCharacters?: number;
}

interface EncodedString {
  value: string;
  encoded: string;
}

/**
 * The key of a long string. Not the string itself: V8 hashes a string longer than 16,383 characters by its length
 * alone, so long strings of one length share one bucket of a `Map`, and a lookup compares the key with each of them
 * in full. System prompts all start with the same ~24 KB skill document and often have the same length
 * (connections `m01`…`m64`). Two strings with one fingerprint are still told apart by the comparison on a hit;
 * they only evict each other.
 */
function fingerprint(value: string): string {
  return `${value.length}:${value.slice(0, 64)}${value.slice(-FINGERPRINT_TAIL)}`;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !('toJSON' in value);
}

/**
 * A provider body encoder (`encodeBody` of `@hal-ai/providers`) that gives exactly the text `JSON.stringify` gives,
 * but encodes the parts that repeat from call to call once: deeply frozen arrays and objects (the tool
 * declarations: one frozen list per connection) by identity, and long strings (a system prompt that starts with the
 * ~24 KB skill document) by value, in one bounded cache per encoder. Only plain data is walked; anything else (a
 * `toJSON`, a class instance) goes to `JSON.stringify` as it is. HAL hands one encoder to every provider it builds
 * when `HAL_PROVIDER_BODY_CACHE` is on (`apps/hal/bench/README.md` has what it buys).
 *
 * @example
 * const encodeBody = createProviderBodyEncoder();
 * createProvider({ provider: 'openai', apiKey, encodeBody });
 */
export function createProviderBodyEncoder(
  settings: ProviderBodyEncoderSettings = {},
): (body: unknown) => string {
  const strings = new LRUCache<string, EncodedString>({
    maxSize: settings.maxCharacters ?? 16 * 1024 * 1024,
    sizeCalculation: (entry) => Math.max(1, entry.encoded.length),
  });
  const frozen = new WeakMap<object, string>();
  /** Values found frozen all the way down: only those can never change, so only those are kept encoded. */
  const deeplyFrozen = new WeakSet<object>();

  const encodedString = (value: string): string => {
    const key = fingerprint(value);
    const cached = strings.get(key);
    if (cached !== undefined && cached.value === value) return cached.encoded;
    const encoded = JSON.stringify(value);
    strings.set(key, { value, encoded });
    return encoded;
  };

  const isDeeplyFrozen = (value: object): boolean => {
    if (deeplyFrozen.has(value)) return true;
    if (!Object.isFrozen(value)) return false;
    for (const item of Object.values(value)) {
      if (item !== null && typeof item === 'object' && !isDeeplyFrozen(item)) return false;
    }
    deeplyFrozen.add(value);
    return true;
  };

  const encodedFrozen = (value: object): string | undefined => {
    let cached = frozen.get(value);
    if (cached === undefined) {
      if (!isDeeplyFrozen(value)) return undefined;
      cached = JSON.stringify(value) ?? 'null';
      frozen.set(value, cached);
    }
    return cached;
  };

  const walk = (value: unknown, out: string[], depth: number): void => {
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
  };

  return (body) => {
    const out: string[] = [];
    walk(body, out, 0);
    return out.join('');
  };
}
