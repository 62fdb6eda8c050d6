/**
 * Where sealed entries live. Structural: any object with these methods works (the HAL app
 * implements it with kysely; {@link createMemoryVaultStore} serves tests and examples). It only
 * ever sees sealed text, never a secret.
 */
export interface VaultStore {
  /** The sealed entry stored under `id`, or `undefined`. */
  read(id: string): Promise<string | undefined>;
  /** Stores (inserts or replaces) the sealed entry of `id`. One write is atomic. */
  write(id: string, sealed: string): Promise<void>;
  /** Removes the entry of `id` (no error if absent). */
  delete(id: string): Promise<void>;
  /** Every stored id. */
  list(): Promise<string[]>;
  /**
   * Runs `fn` against a store whose writes all commit together when `fn` resolves, or none of
   * them when it throws. Optional: rotation uses it when present.
   */
  transaction?<T>(fn: (store: VaultStore) => Promise<T>): Promise<T>;
}

/**
 * An in-memory {@link VaultStore} with transactions (writes go to a copy that replaces the
 * original only when the transaction's function resolves).
 *
 * @example
 * const vault = createVault({ key: generateVaultKey(), store: createMemoryVaultStore() });
 */
export function createMemoryVaultStore(initial?: Iterable<readonly [string, string]>): VaultStore {
  let entries = new Map<string, string>(initial);

  function storeOver(map: () => Map<string, string>): VaultStore {
    return {
      async read(id) {
        return map().get(id);
      },
      async write(id, sealed) {
        map().set(id, sealed);
      },
      async delete(id) {
        map().delete(id);
      },
      async list() {
        return [...map().keys()];
      },
    };
  }

  const store = storeOver(() => entries);
  store.transaction = async <T>(fn: (inner: VaultStore) => Promise<T>): Promise<T> => {
    const staged = new Map(entries);
    const inner = storeOver(() => staged);
    // Nested transactions join the outer one.
    inner.transaction = (nested) => nested(inner);
    const result = await fn(inner);
    entries = staged;
    return result;
  };
  return store;
}
