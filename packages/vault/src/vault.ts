import { randomBytes } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import { VAULT_NOT_FOUND } from './vault-errors.js';
import { hintOf } from './vault-hint.js';
import type { VaultKey } from './vault-key.js';
import { createRedactor } from './vault-redact.js';
import { openSealed, parseSealed, sealSecret } from './vault-seal.js';
import type { VaultStore } from './vault-store.js';

/** Ids: 1–200 characters of letters, digits and `. _ : / -`, starting with a letter or digit. */
export const VAULT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

/** Largest secret accepted, in UTF-8 bytes (OAuth tokens can be several KB; nothing needs more). */
export const MAX_SECRET_BYTES = 64 * 1024;

/** Settings of {@link createVault}. */
export interface VaultSettings {
  /** The current master key: every new or re-sealed entry is sealed with it. */
  key: VaultKey;
  /** Older keys that may still have sealed some entries (after an interrupted rotation). Read only. */
  previousKeys?: readonly VaultKey[];
  /** Where sealed entries live. */
  store: VaultStore;
  /** Random source for nonces. Default `crypto.randomBytes`. */
  random?: (size: number) => Buffer;
}

/** What {@link Vault.rotate} did. */
export interface RotateResult {
  /** Entries re-sealed under the new key. */
  rotated: number;
  /** Entries that were already sealed under the new key (an earlier, interrupted run). */
  alreadyCurrent: number;
}

/** What {@link Vault.load} found. */
export interface LoadResult {
  /** Entries that opened. */
  loaded: number;
  /** Entries that did not open, with the error code (never the content). */
  failed: Array<{ id: string; code: string; reason?: string }>;
}

/** The encrypted secret store. */
export interface Vault {
  /** Id of the current key (safe to log). */
  readonly keyId: string;
  /** The secret stored under `id`, or `undefined`. Throws `vault_integrity` if the entry does not open. */
  get(id: string): Promise<string | undefined>;
  /** The secret stored under `id`; throws `vault_not_found` (404) if there is none. */
  require(id: string): Promise<string>;
  /** Seals and stores `secret` under `id`, replacing any previous one. */
  set(id: string, secret: string): Promise<void>;
  /** Removes the secret of `id` (no error if absent). */
  delete(id: string): Promise<void>;
  /** Whether an entry exists under `id` (does not decrypt it). */
  has(id: string): Promise<boolean>;
  /** Every stored id. */
  list(): Promise<string[]>;
  /**
   * A hint of the secret under `id` (see {@link hintOf}), or `undefined` if there is none. Served
   * from memory for every id this instance has set, opened (`get`, `load`) or rotated, so it costs
   * no store read and no decryption; only an id it has not seen yet is read (and then remembered).
   */
  hint(id: string): Promise<string | undefined>;
  /** A hint of any secret (see {@link hintOf}). */
  hintOf(secret: string): string;
  /**
   * Opens every entry once: verifies them and teaches `redact` every stored secret. Call it once
   * at start-up, before logging anything that might hold a secret.
   */
  load(): Promise<LoadResult>;
  /**
   * Re-seals every entry under `newKey` and makes it the current key. Runs inside
   * `store.transaction` when the store has one (all or nothing); otherwise entry by entry, which is
   * still crash-safe: each write replaces one entry atomically, an entry is either old-sealed or
   * new-sealed (its key id tells which), and a re-run skips entries already under `newKey`.
   */
  rotate(newKey: VaultKey): Promise<RotateResult>;
  /** Replaces every known secret (and its encodings) in any value by `[redacted]` (see {@link createRedactor}). */
  redact<T>(value: T): T;
  /** How many trailing characters of streamed `text` could begin a known secret (see {@link Redactor.heldLength}). */
  heldLength(text: string): number;
}

function validateId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !VAULT_ID_PATTERN.test(id)) {
    throw new HalError('validation_failed', 'Invalid vault id: use 1–200 letters, digits or . _ : / -', {
      details: { field: 'id' },
    });
  }
}

function validateSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new HalError('validation_failed', 'A secret must be a non-empty string', {
      details: { field: 'secret' },
    });
  }
  if (Buffer.byteLength(secret, 'utf8') > MAX_SECRET_BYTES) {
    throw new HalError('validation_failed', `A secret may be at most ${MAX_SECRET_BYTES} bytes`, {
      details: { field: 'secret' },
    });
  }
}

/**
 * Creates a vault over a store. Secrets are sealed with AES-256-GCM (see `sealSecret`); the store
 * only ever holds sealed text. Writes and rotation are serialised within this instance.
 *
 * @example
 * const vault = createVault({ key: loadVaultKey({ keyFile }), store });
 * await vault.set('ai:conn:1:api_key', apiKey);
 * vault.redact({ header: `Bearer ${apiKey}` }); // { header: 'Bearer [redacted]' }
 */
export function createVault(settings: VaultSettings): Vault {
  const { store } = settings;
  const random = settings.random ?? randomBytes;
  let current = settings.key;
  let keys: VaultKey[] = [current, ...(settings.previousKeys ?? [])];
  const redactor = createRedactor();
  // The secret the redactor holds for each id, so replacing or deleting an id updates it.
  const known = new Map<string, string>();
  // Hints of the secrets in `known`: views of connections ask for them on every request, and
  // opening the entry again (a store read + AES-GCM) just to show four characters was the hot path.
  const hints = new Map<string, string>();
  let queue: Promise<unknown> = Promise.resolve();

  function remember(id: string, secret: string | undefined): void {
    if (secret === undefined) hints.delete(id);
    else hints.set(id, hintOf(secret));
    const previous = known.get(id);
    if (previous === secret) return;
    if (previous !== undefined) redactor.remove(previous);
    if (secret === undefined) known.delete(id);
    else {
      known.set(id, secret);
      redactor.add(secret);
    }
  }

  /** Runs mutations one at a time, so a `set` cannot interleave with a rotation's read and write. */
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }

  async function get(id: string): Promise<string | undefined> {
    validateId(id);
    const sealed = await store.read(id);
    if (sealed === undefined) {
      // Deleted behind this instance's back (another process): stop hinting it.
      hints.delete(id);
      return undefined;
    }
    let secret: string;
    try {
      secret = openSealed(keys, id, sealed);
    } catch (error) {
      // The entry no longer opens: the next hint() reads it again and reports that too.
      hints.delete(id);
      throw error;
    }
    remember(id, secret);
    return secret;
  }

  async function rotateIn(target: VaultStore, newKey: VaultKey): Promise<RotateResult> {
    const openWith = [newKey, ...keys.filter((key) => key.id !== newKey.id)];
    let rotated = 0;
    let alreadyCurrent = 0;
    for (const id of await target.list()) {
      const sealed = await target.read(id);
      if (sealed === undefined) continue;
      // Always open first (also entries already under newKey): a broken entry stops the rotation
      // instead of being carried over, and we never seal sealed text.
      const secret = openSealed(openWith, id, sealed);
      remember(id, secret);
      if (parseSealed(sealed)?.keyId === newKey.id) {
        alreadyCurrent++;
        continue;
      }
      await target.write(id, sealSecret(newKey, id, secret, random));
      rotated++;
    }
    return { rotated, alreadyCurrent };
  }

  return {
    get keyId() {
      return current.id;
    },
    get,
    async require(id) {
      const secret = await get(id);
      if (secret === undefined) {
        throw new HalError(VAULT_NOT_FOUND, `No secret stored under "${id}"`, { details: { id } });
      }
      return secret;
    },
    async set(id, secret) {
      validateId(id);
      validateSecret(secret);
      return exclusive(async () => {
        await store.write(id, sealSecret(current, id, secret, random));
        remember(id, secret);
      });
    },
    async delete(id) {
      validateId(id);
      return exclusive(async () => {
        await store.delete(id);
        remember(id, undefined);
      });
    },
    async has(id) {
      validateId(id);
      return (await store.read(id)) !== undefined;
    },
    list: () => store.list(),
    async hint(id) {
      validateId(id);
      const cached = hints.get(id);
      if (cached !== undefined) return cached;
      const secret = await get(id);
      return secret === undefined ? undefined : hintOf(secret);
    },
    hintOf,
    async load() {
      const result: LoadResult = { loaded: 0, failed: [] };
      for (const id of await store.list()) {
        try {
          if ((await get(id)) !== undefined) result.loaded++;
        } catch (error) {
          if (!HalError.isInstance(error)) throw error;
          const reason = typeof error.details.reason === 'string' ? error.details.reason : undefined;
          result.failed.push(reason ? { id, code: error.code, reason } : { id, code: error.code });
        }
      }
      return result;
    },
    rotate(newKey) {
      return exclusive(async () => {
        // Readable from the start: if the rotation stops half-way without a transaction, the
        // entries it already re-sealed still open in this instance.
        if (!keys.some((key) => key.id === newKey.id)) keys = [...keys, newKey];
        const result = store.transaction
          ? await store.transaction((target) => rotateIn(target, newKey))
          : await rotateIn(store, newKey);
        keys = [newKey, ...keys.filter((key) => key.id !== newKey.id)];
        current = newKey;
        return result;
      });
    },
    redact: (value) => redactor.redact(value),
    heldLength: (text) => redactor.heldLength(text),
  };
}
