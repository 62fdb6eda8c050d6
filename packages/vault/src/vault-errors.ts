import { HalError } from '@hal-ai/spec';

/** An entry did not open: edited, swapped to another id, truncated, or sealed under a key that is not loaded. */
export const VAULT_INTEGRITY = 'vault_integrity';
/** A master key is missing, malformed, too weak, a well-known example, or its key file is readable by others. */
export const VAULT_KEY_INVALID = 'vault_key_invalid';
/** A secret that had to exist (`vault.require(id)`) is not in the vault. */
export const VAULT_NOT_FOUND = 'vault_not_found';

/** The stable error codes this package throws (all are `HalError` codes of `@hal-ai/spec`). */
export type VaultErrorCode =
  | typeof VAULT_INTEGRITY
  | typeof VAULT_KEY_INVALID
  | typeof VAULT_NOT_FOUND
  | 'validation_failed';

/** Why an entry failed to open, carried as `details.reason` of a `vault_integrity` error. */
export type VaultIntegrityReason = 'malformed' | 'unknown_key' | 'authentication_failed';

/** @internal A `vault_integrity` error naming the entry and why it did not open (never its content). */
export function integrityError(id: string, reason: VaultIntegrityReason, keyId?: string): HalError {
  const why =
    reason === 'malformed'
      ? 'is not a sealed vault entry of a known format'
      : reason === 'unknown_key'
        ? `was sealed with key ${keyId}, which is not loaded (wrong HAL_VAULT_KEY or key file?)`
        : 'failed authentication: it was edited, truncated or moved from another id';
  return new HalError(VAULT_INTEGRITY, `Vault entry "${id}" ${why}`, {
    details: keyId === undefined ? { id, reason } : { id, reason, keyId },
  });
}

/** @internal A `vault_key_invalid` error. */
export function keyInvalidError(message: string, cause?: unknown): HalError {
  return new HalError(VAULT_KEY_INVALID, message, cause === undefined ? {} : { cause });
}
