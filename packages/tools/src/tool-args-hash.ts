import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalJson } from './tool-canonical-json.js';

/**
 * SHA-256 of a string (UTF-8) or bytes, as lower-case hex: synchronous and browser-safe (`@noble/hashes`;
 * WebCrypto's digest is async and `node:crypto` is Node-only).
 *
 * @example
 * sha256Hex('abc'); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(input: string | Uint8Array): string {
  return bytesToHex(sha256(typeof input === 'string' ? utf8ToBytes(input) : input));
}

/**
 * SHA-256 hex of {@link canonicalJson}: binds a proposal or a confirm token to exact arguments.
 *
 * @example
 * argsHash({ id: 'srv-1' }) === argsHash(JSON.parse('{"id":"srv-1"}')); // true
 */
export function argsHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
