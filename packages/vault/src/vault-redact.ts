/** What a redacted secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this are not redacted: as patterns they would erase ordinary words and
 * numbers. Real API keys, tokens and verifiers are far longer.
 */
export const MIN_REDACTABLE_LENGTH = 8;

/** Replaces known secrets in any value. */
export interface Redactor {
  /**
   * Returns a copy of `value` in which every known secret — raw, base64, base64url, hex (either
   * case), `encodeURIComponent`-encoded or JSON-escaped, also inside longer base64 text such as a Basic
   * authorization header, and in UTF-16 (its UTF-16LE bytes as base64 or hex, as NUL-separated text, or as
   * `\uXXXX` escapes) — is replaced by `[redacted]`, in strings, object keys and values,
   * arrays, `Map`s, `Set`s and `Error`s (message, stack, own fields), at any depth, cycles included.
   */
  redact<T>(value: T): T;
  /**
   * How many characters at the end of `text` could be the start of a known secret's spelling (0 when none could).
   * A stream that redacts piece by piece holds those characters back until the next piece shows whether they
   * complete a secret; otherwise a secret split across two pieces would pass both redactions.
   */
  heldLength(text: string): number;
  /** Adds a secret to redact. */
  add(secret: string): void;
  /** Stops redacting a secret. */
  remove(secret: string): void;
  /** How many secrets are known. */
  readonly size: number;
}

function base64Cores(bytes: Buffer, alphabet: 'base64' | 'base64url'): string[] {
  // Inside a longer base64 text the secret starts at byte offset 0, 1 or 2 of a 3-byte group; for
  // each alignment, the characters that depend on the secret's bytes alone are a fixed string.
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet);
    const firstGroup = Math.ceil(offset / 3);
    const lastGroup = Math.floor((offset + bytes.length) / 3); // exclusive
    if (lastGroup - firstGroup < 2) continue;
    cores.push(encoded.slice(firstGroup * 4, lastGroup * 4));
  }
  return cores;
}

/** Every spelling of `secret` that redaction looks for. */
export function encodedFormsOf(secret: string): string[] {
  // A short secret is no pattern (see MIN_REDACTABLE_LENGTH), however long its encodings are.
  if (secret.length < MIN_REDACTABLE_LENGTH) return [];
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = bytes.toString('base64');
  const hex = bytes.toString('hex');
  // UTF-16 spellings: its UTF-16LE bytes in base64 or hex (e.g. PowerShell's -EncodedCommand), those bytes read as
  // single-byte text (NULs between the characters), and every code unit as a `\uXXXX` escape.
  const wide = Buffer.from(secret, 'utf16le');
  const wideHex = wide.toString('hex');
  const unitEscapes = Array.from(
    { length: secret.length },
    (_, index) => `\\u${secret.charCodeAt(index).toString(16).padStart(4, '0')}`,
  ).join('');
  const forms = new Set([
    secret,
    base64,
    base64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    hex,
    hex.toUpperCase(),
    encodeURIComponent(secret),
    // As it appears inside serialised JSON (a secret with `"`, `\\` or control characters).
    JSON.stringify(secret).slice(1, -1),
    ...base64Cores(bytes, 'base64'),
    ...base64Cores(bytes, 'base64url'),
    wide.toString('base64'),
    wide.toString('base64').replace(/=+$/, ''),
    wideHex,
    wideHex.toUpperCase(),
    wide.toString('latin1'),
    unitEscapes,
    unitEscapes.toUpperCase().replaceAll('\\U', '\\u'),
    ...base64Cores(wide, 'base64'),
  ]);
  return [...forms].filter((form) => form.length >= MIN_REDACTABLE_LENGTH);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Makes a standalone redactor for a list of secrets (see {@link Redactor.redact}).
 *
 * @example
 * const { redact } = createRedactor([apiKey]);
 * logger.info(redact({ headers }));
 */
export function createRedactor(secrets: Iterable<string> = []): Redactor {
  const known = new Map<string, number>();
  let pattern: RegExp | undefined;
  // The spellings by their first character: a streamed tail is only compared with those it could begin.
  let byFirst = new Map<string, string[]>();
  let longest = 0;
  let dirty = true;

  function compile(): RegExp | undefined {
    if (!dirty) return pattern;
    const forms = new Set<string>();
    for (const secret of known.keys()) for (const form of encodedFormsOf(secret)) forms.add(form);
    // Longest first, so a whole encoding is replaced before any shorter form inside it.
    const spellings = [...forms].sort((a, b) => b.length - a.length);
    longest = spellings[0]?.length ?? 0;
    byFirst = new Map();
    for (const form of spellings)
      byFirst.set(form[0] as string, [...(byFirst.get(form[0] as string) ?? []), form]);
    const sorted = spellings.map(escapeRegExp);
    pattern = sorted.length ? new RegExp(sorted.join('|'), 'g') : undefined;
    dirty = false;
    return pattern;
  }

  function redactString(text: string, regex: RegExp): string {
    return text.replace(regex, REDACTED);
  }

  function walk(value: unknown, regex: RegExp, seen: Map<object, unknown>): unknown {
    if (typeof value === 'string') return redactString(value, regex);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return seen.get(value);
    if (value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value)) return value;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      seen.set(value, out);
      for (const item of value) out.push(walk(item, regex, seen));
      return out;
    }
    if (value instanceof Map) {
      const out = new Map();
      seen.set(value, out);
      for (const [k, v] of value) out.set(walk(k, regex, seen), walk(v, regex, seen));
      return out;
    }
    if (value instanceof Set) {
      const out = new Set();
      seen.set(value, out);
      for (const item of value) out.add(walk(item, regex, seen));
      return out;
    }
    // Errors keep their prototype (loggers' `instanceof Error` serializers still apply); their
    // message and stack are own but non-enumerable, so copy every own property.
    const isError = value instanceof Error;
    const out: Record<PropertyKey, unknown> = isError ? Object.create(Object.getPrototypeOf(value)) : {};
    seen.set(value, out);
    const keys = isError ? Reflect.ownKeys(value) : Object.keys(value);
    for (const key of keys) {
      const item = (value as Record<PropertyKey, unknown>)[key];
      const name = typeof key === 'string' ? redactString(key, regex) : key;
      if (isError) {
        Object.defineProperty(out, name, {
          value: walk(item, regex, seen),
          enumerable: Object.prototype.propertyIsEnumerable.call(value, key),
          writable: true,
          configurable: true,
        });
      } else {
        out[name] = walk(item, regex, seen);
      }
    }
    return out;
  }

  const redactor: Redactor = {
    redact<T>(value: T): T {
      const regex = compile();
      if (!regex) return value;
      return walk(value, regex, new Map()) as T;
    },
    heldLength(text: string): number {
      compile();
      // From the longest tail down, the first that is a proper prefix of a spelling (a whole one was already
      // redacted); only the spellings that start with the tail's first character are compared.
      for (let start = Math.max(0, text.length - (longest - 1)); start < text.length; start++) {
        const length = text.length - start;
        const tail = text.slice(start);
        const candidates = byFirst.get(text[start] as string);
        if (candidates?.some((form) => form.length > length && form.startsWith(tail))) return length;
      }
      return 0;
    },
    add(secret: string) {
      if (typeof secret !== 'string' || secret.length < MIN_REDACTABLE_LENGTH) return;
      known.set(secret, (known.get(secret) ?? 0) + 1);
      dirty = true;
    },
    remove(secret: string) {
      const count = known.get(secret);
      if (count === undefined) return;
      if (count > 1) known.set(secret, count - 1);
      else known.delete(secret);
      dirty = true;
    },
    get size() {
      return known.size;
    },
  };
  for (const secret of secrets) redactor.add(secret);
  return redactor;
}
