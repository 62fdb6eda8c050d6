import fs from 'node:fs';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import {
  createVault,
  loadVaultKey,
  parseVaultKey,
  VAULT_KEY_INVALID,
  type Vault,
  type VaultKey,
} from '@hal-ai/vault';
import type { Kysely } from 'kysely';
import type { Clock } from '../../domain/core/clock.js';
import { createKyselyVaultStore } from './kysely-vault-store.js';

export { createKyselyVaultStore, type KyselyVaultStoreSettings } from './kysely-vault-store.js';
export { vaultLogRedaction } from './vault-log-redaction.js';

/** Name of the key file in the data folder when `HAL_VAULT_KEY` is not set. */
export const VAULT_KEY_FILE = 'vault.key';
/** Name of the previous key file during a rotation (see {@link createAppVault}). */
export const VAULT_PREVIOUS_KEY_FILE = 'vault.key.previous';

/** The part of a logger the vault start-up uses (pino's methods fit). */
export interface VaultStartupLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** Settings of {@link createAppVault}. */
export interface AppVaultSettings {
  /** The HAL database, migrated (table `vault_entries`). */
  // biome-ignore lint/suspicious/noExplicitAny: any schema that has the vault table; kysely types Kysely<T> invariantly.
  db: Kysely<any>;
  /** `dataDir` holds the key files; `vaultKey` is `HAL_VAULT_KEY` when set. */
  config: { dataDir: string; vaultKey?: string | undefined };
  /** Environment for `HAL_VAULT_PREVIOUS_KEY`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  logger?: VaultStartupLogger;
  clock?: Clock;
}

/**
 * Opens HAL's vault over the database at start-up.
 *
 * Key: `HAL_VAULT_KEY` (base64 of 32 bytes) when set, else `<dataDir>/vault.key`, created 0600 on
 * the first run. If that file is missing while the database already holds entries (and no
 * previous key is given), start-up stops with `vault_key_invalid` rather than minting a new key
 * that opens nothing.
 *
 * Rotation: the previous key is `<dataDir>/vault.key.previous` and/or `HAL_VAULT_PREVIOUS_KEY`.
 * To rotate a key file, stop HAL, `mv vault.key vault.key.previous`, start HAL: it creates a new
 * `vault.key` and re-seals every entry under it in one transaction. With `HAL_VAULT_KEY`, move the
 * old value to `HAL_VAULT_PREVIOUS_KEY` and set a new one. Whenever a previous key is present the
 * re-seal runs again (it skips entries already under the current key), so a crash at any point is
 * finished by the next start. Delete the previous key once no backup sealed under it is needed.
 *
 * Finally every entry is opened once, so `vault.redact` knows every stored secret before anything
 * is logged; entries that do not open are logged by id and code (never content).
 *
 * @example
 * const vault = await createAppVault({ db, config, logger });
 */
export async function createAppVault(settings: AppVaultSettings): Promise<Vault> {
  const env = settings.env ?? process.env;
  const store = createKyselyVaultStore(
    settings.clock ? { db: settings.db, clock: settings.clock } : { db: settings.db },
  );
  const keyFile = path.join(settings.config.dataDir, VAULT_KEY_FILE);
  const previousFile = path.join(settings.config.dataDir, VAULT_PREVIOUS_KEY_FILE);

  const previousKeys: VaultKey[] = [];
  if (env.HAL_VAULT_PREVIOUS_KEY !== undefined) previousKeys.push(parseVaultKey(env.HAL_VAULT_PREVIOUS_KEY));
  if (fs.existsSync(previousFile)) {
    previousKeys.push(loadVaultKey({ env: {}, keyFile: previousFile, create: false }));
  }

  let key: VaultKey;
  if (settings.config.vaultKey !== undefined) {
    key = parseVaultKey(settings.config.vaultKey, 'env');
  } else {
    if (!fs.existsSync(keyFile) && previousKeys.length === 0) {
      const entries = (await store.list()).length;
      if (entries > 0) {
        throw new HalError(
          VAULT_KEY_INVALID,
          `${keyFile} is missing but the vault holds ${entries} sealed entries: restore the key file ` +
            `(or set HAL_VAULT_KEY) — a new key would open none of them`,
        );
      }
    }
    key = loadVaultKey({ env: {}, keyFile });
  }

  const vault = createVault({ key, previousKeys, store });
  if (previousKeys.length > 0) {
    const result = await vault.rotate(key);
    settings.logger?.info({ ...result, keyId: key.id }, 'vault entries re-sealed under the current key');
  }
  const loaded = await vault.load();
  if (loaded.failed.length > 0) {
    settings.logger?.warn({ failed: loaded.failed, keyId: key.id }, 'vault entries that do not open');
  }
  return vault;
}
