/** The vault's table: sealed secrets only. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the vault store
export interface VaultTables {}
