/** One sealed secret (`v1.<keyId>.<nonce>.<ciphertext+tag>`); the plaintext is never stored. */
export interface VaultEntriesTable {
  /** The vault id, e.g. `ai:conn:<id>:api_key`. Bound to the ciphertext, so rows cannot be swapped. */
  id: string;
  /** The sealed entry. */
  sealed: string;
  /** ISO time of the last write. */
  updated_at: string;
}

/** The vault's table: sealed secrets only. */
export interface VaultTables {
  vault_entries: VaultEntriesTable;
}
