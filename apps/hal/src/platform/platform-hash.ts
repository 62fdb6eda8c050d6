import { createHash } from 'node:crypto';

/**
 * SHA-256 of a string (UTF-8) or bytes, as lower-case hex: the one digest helper of the HAL host
 * (session, agent and confirm tokens, OAuth states, the audit chain). Node's own `crypto`, since the
 * host runs on Node; the browser-safe libraries use `sha256Hex` from `@hal-ai/tools`, which gives
 * the same hex.
 *
 * @example
 * sha256Hex('abc'); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}
