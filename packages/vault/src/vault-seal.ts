import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { integrityError } from './vault-errors.js';
import { encryptionKeyOf, type VaultKey } from './vault-key.js';

/** The entry format version this package writes. */
export const VAULT_FORMAT_VERSION = 'v1';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_PATTERN = /^v1\.([A-Za-z0-9_-]{12})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22,})$/;

/** The parts of a sealed entry, as {@link parseSealed} reads them. */
export interface SealedParts {
  version: typeof VAULT_FORMAT_VERSION;
  /** Id of the key that sealed the entry. */
  keyId: string;
  nonce: Buffer;
  /** Ciphertext followed by the 16-byte GCM tag. */
  ciphertext: Buffer;
}

/**
 * The associated data binds an entry to its format version, its key id and the id it is stored
 * under: moving a ciphertext to another id, or relabelling its key id, fails authentication.
 * NUL separators keep the fields unambiguous (ids never contain NUL).
 */
function associatedData(keyId: string, id: string): Buffer {
  return Buffer.from(`hal-vault\0${VAULT_FORMAT_VERSION}\0${keyId}\0${id}`, 'utf8');
}

/**
 * Reads the format `v1.<keyId>.<nonce>.<ciphertext+tag>` (each part base64url without padding),
 * or `undefined` if the text is not one.
 */
export function parseSealed(sealed: string): SealedParts | undefined {
  const match = SEALED_PATTERN.exec(sealed);
  if (!match) return undefined;
  const nonce = Buffer.from(match[2]!, 'base64url');
  const ciphertext = Buffer.from(match[3]!, 'base64url');
  // Reject non-canonical base64url so one entry has exactly one spelling.
  if (nonce.toString('base64url') !== match[2] || ciphertext.toString('base64url') !== match[3])
    return undefined;
  if (nonce.length !== NONCE_BYTES || ciphertext.length < TAG_BYTES) return undefined;
  return { version: VAULT_FORMAT_VERSION, keyId: match[1]!, nonce, ciphertext };
}

/**
 * Encrypts `secret` for storage under `id` with AES-256-GCM and a fresh 12-byte random nonce.
 *
 * @example
 * const sealed = sealSecret(key, 'ai:conn:1:api_key', secret); // "v1.<keyId>.<nonce>.<data>"
 */
export function sealSecret(
  key: VaultKey,
  id: string,
  secret: string,
  random: (size: number) => Buffer = randomBytes,
): string {
  const nonce = Buffer.from(random(NONCE_BYTES));
  if (nonce.length !== NONCE_BYTES) throw new RangeError('The random source returned a short nonce');
  const cipher = createCipheriv('aes-256-gcm', encryptionKeyOf(key), nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(key.id, id));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [VAULT_FORMAT_VERSION, key.id, nonce.toString('base64url'), body.toString('base64url')].join('.');
}

/**
 * Decrypts an entry stored under `id` with whichever of `keys` sealed it.
 *
 * @throws `HalError` `vault_integrity` (with `details.reason` `malformed`, `unknown_key` or
 *   `authentication_failed`) — never returns altered plaintext.
 */
export function openSealed(keys: readonly VaultKey[], id: string, sealed: string): string {
  const parts = parseSealed(sealed);
  if (!parts) throw integrityError(id, 'malformed');
  const key = keys.find((candidate) => candidate.id === parts.keyId);
  if (!key) throw integrityError(id, 'unknown_key', parts.keyId);
  const body = parts.ciphertext.subarray(0, parts.ciphertext.length - TAG_BYTES);
  const tag = parts.ciphertext.subarray(parts.ciphertext.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', encryptionKeyOf(key), parts.nonce, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(associatedData(key.id, id));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    throw integrityError(id, 'authentication_failed', parts.keyId);
  }
}
