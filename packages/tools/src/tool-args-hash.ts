import { HalError } from '@hal-ai/spec';

// SHA-256 in plain TypeScript (FIPS 180-4) so the root entry stays browser-safe and synchronous:
// WebCrypto's digest is async, `node:crypto` is Node-only, and the stores that compare hashes
// want a plain function. Checked against `node:crypto` in the tests.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/**
 * SHA-256 of a string (UTF-8) or bytes, as lower-case hex.
 *
 * @example
 * sha256Hex('abc'); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(input: string | Uint8Array): string {
  const data = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  const bitLength = data.length * 8;
  const padded = new Uint8Array((((data.length + 9 + 63) >> 6) << 6) >>> 0);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  // Bit length as a 64-bit big-endian integer (inputs here are far below 2^53 bits).
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(padded.length - 4, bitLength >>> 0);

  const hash = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const w15 = w[i - 15] as number;
      const w2 = w[i - 2] as number;
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = hash as unknown as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + (K[i] as number) + (w[i] as number)) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    hash[0] = (hash[0] as number) + a;
    hash[1] = (hash[1] as number) + b;
    hash[2] = (hash[2] as number) + c;
    hash[3] = (hash[3] as number) + d;
    hash[4] = (hash[4] as number) + e;
    hash[5] = (hash[5] as number) + f;
    hash[6] = (hash[6] as number) + g;
    hash[7] = (hash[7] as number) + h;
  }
  return Array.from(hash, (word) => word.toString(16).padStart(8, '0')).join('');
}

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
      throw new HalError('validation_failed', 'Arguments cannot contain a bigint');
    case 'object': {
      if (stack.has(value as object))
        throw new HalError('validation_failed', 'Arguments contain a circular reference');
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
 * dropped — the RFC 8785 (JCS) form for JSON data. Two argument objects that mean the same thing
 * give the same string whatever their key order.
 *
 * @throws HalError `validation_failed` for a bigint or a circular reference.
 * @example
 * canonicalArgs({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalArgs(value: unknown): string {
  return write(value, new Set()) ?? 'null';
}

/**
 * SHA-256 hex of {@link canonicalArgs}: binds a proposal or a confirm token to exact arguments.
 *
 * @example
 * argsHash({ id: 'srv-1' }) === argsHash(JSON.parse('{"id":"srv-1"}')); // true
 */
export function argsHash(value: unknown): string {
  return sha256Hex(canonicalArgs(value));
}
