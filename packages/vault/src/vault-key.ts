import { createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { keyInvalidError } from './vault-errors.js';

/** Length of a master key in bytes (AES-256). */
export const VAULT_KEY_BYTES = 32;

/**
 * A loaded master key. Only its `id` is visible: the key material lives in a module-private
 * map, so logging, `JSON.stringify` or `util.inspect` of a key never prints it.
 */
export interface VaultKey {
  /** A short fingerprint derived from the key (HKDF), written into every entry it seals. */
  readonly id: string;
  /** Where the key came from. */
  readonly source: 'env' | 'file' | 'generated';
}

interface KeyMaterial {
  encryption: KeyObject;
}

const materials = new WeakMap<VaultKey, KeyMaterial>();

// Domain-separated derivations: the id is public, the encryption key is not, and neither
// reveals the other or the master key.
const ENCRYPTION_INFO = 'hal-vault v1 aes-256-gcm';
const KEY_ID_INFO = 'hal-vault v1 key id';

function derive(master: Buffer, info: string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, length));
}

function createKey(master: Buffer, source: VaultKey['source']): VaultKey {
  // 9 bytes → 12 base64url characters without padding.
  const id = derive(master, KEY_ID_INFO, 9).toString('base64url');
  const key: VaultKey = Object.freeze({
    id,
    source,
    toJSON: () => ({ id, source }),
  });
  materials.set(key, { encryption: createSecretKey(derive(master, ENCRYPTION_INFO, 32)) });
  return key;
}

/** @internal The AES key of a loaded key; throws for an object that is not a `VaultKey`. */
export function encryptionKeyOf(key: VaultKey): KeyObject {
  const material = materials.get(key);
  if (!material)
    throw keyInvalidError('Not a vault key: use loadVaultKey(), parseVaultKey() or generateVaultKey()');
  return material.encryption;
}

function exampleKeys(): Set<string> {
  const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');
  const sequence = Buffer.from(Array.from({ length: VAULT_KEY_BYTES }, (_, i) => i)).toString('hex');
  return new Set([
    ascii('0123456789abcdef0123456789abcdef'),
    ascii('0123456789ABCDEF0123456789ABCDEF'),
    ascii('01234567890123456789012345678901'),
    ascii('12345678901234567890123456789012'),
    sequence,
    Buffer.from(sequence, 'hex').reverse().toString('hex'),
  ]);
}

const EXAMPLES = exampleKeys();

/**
 * Why a 32-byte key is unfit, or `undefined` when it looks like random bytes. Random keys pass
 * every rule with overwhelming probability: 32 random bytes are all printable ASCII with
 * probability ≈ 1.6·10⁻¹⁴ and have fewer than 16 distinct values far more rarely still.
 */
function weakness(bytes: Buffer): string | undefined {
  if (bytes.every((b) => b === 0)) return 'is all zero bytes';
  if (EXAMPLES.has(bytes.toString('hex'))) return 'is a well-known example key';
  if (new Set(bytes).size < 16) return 'repeats too few distinct byte values to be random';
  if (bytes.every((b) => b >= 0x20 && b <= 0x7e))
    return 'is printable text (a password?), not 32 random bytes';
  return undefined;
}

/**
 * Parses a base64 (or base64url) encoded 32-byte master key and checks it is not weak.
 *
 * @throws `HalError` `vault_key_invalid` when the text is not exactly 32 bytes of canonical base64,
 *   is all zeros, a well-known example, or otherwise clearly not random.
 * @example
 * const key = parseVaultKey(process.env.HAL_VAULT_KEY ?? '');
 */
export function parseVaultKey(encoded: string, source: VaultKey['source'] = 'env'): VaultKey {
  const text = encoded.trim();
  const what = source === 'file' ? 'The vault key file' : 'HAL_VAULT_KEY';
  if (text === '') throw keyInvalidError(`${what} is empty`);
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    throw keyInvalidError(
      `${what} must be exactly ${VAULT_KEY_BYTES} bytes encoded as base64 (44 characters)`,
    );
  }
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(44, '=');
  const bytes = Buffer.from(standard, 'base64');
  // The last character carries 2 unused bits: require them to be zero so each key has one spelling.
  if (bytes.length !== VAULT_KEY_BYTES || bytes.toString('base64') !== standard) {
    throw keyInvalidError(`${what} is not canonical base64 of ${VAULT_KEY_BYTES} bytes`);
  }
  const weak = weakness(bytes);
  if (weak) throw keyInvalidError(`${what} ${weak}; generate one with: openssl rand -base64 32`);
  return createKey(bytes, source);
}

/**
 * Makes a fresh random master key (for rotation or tests). To persist one, let
 * {@link loadVaultKey} create a key file.
 */
export function generateVaultKey(random: (size: number) => Buffer = randomBytes): VaultKey {
  const bytes = random(VAULT_KEY_BYTES);
  if (bytes.length !== VAULT_KEY_BYTES || weakness(bytes)) {
    throw keyInvalidError('The random source returned an unusable key');
  }
  return createKey(Buffer.from(bytes), 'generated');
}

/** Settings of {@link loadVaultKey}. */
export interface LoadVaultKeySettings {
  /** Environment to read `HAL_VAULT_KEY` from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Key file used when `HAL_VAULT_KEY` is not set. Keep it outside the database. */
  keyFile?: string;
  /** Create the key file when it does not exist (default `true`). With `false`, a missing file is an error. */
  create?: boolean;
  /** Random source for a new key. Default `crypto.randomBytes`. */
  random?: (size: number) => Buffer;
}

/**
 * Loads the master key: `HAL_VAULT_KEY` (base64 of exactly 32 bytes) when set, else the key file,
 * which is created on first run with mode 0600 (`O_CREAT|O_EXCL`, so an existing file is never
 * overwritten) and refused on later runs if group or other users may read or write it.
 * There is never a fallback key.
 *
 * @throws `HalError` `vault_key_invalid` for a missing, malformed, weak or exposed key.
 * @example
 * const key = loadVaultKey({ env: process.env, keyFile: path.join(dataDir, 'vault.key') });
 */
export function loadVaultKey(settings: LoadVaultKeySettings = {}): VaultKey {
  const env = settings.env ?? process.env;
  const fromEnv = env.HAL_VAULT_KEY;
  // An empty-but-set variable is a misconfiguration (e.g. `HAL_VAULT_KEY=${UNSET}`): falling back to
  // a file would silently mint a new key that opens none of the existing entries.
  if (fromEnv !== undefined) return parseVaultKey(fromEnv, 'env');
  if (!settings.keyFile) throw keyInvalidError('No vault key: set HAL_VAULT_KEY or give a key file');
  return readOrCreateKeyFile(settings.keyFile, settings.create ?? true, settings.random ?? randomBytes);
}

function readOrCreateKeyFile(file: string, create: boolean, random: (size: number) => Buffer): VaultKey {
  const existing = readKeyFile(file);
  if (existing) return existing;
  if (!create) throw keyInvalidError(`Vault key file ${file} does not exist`);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = random(VAULT_KEY_BYTES);
  let fd: number;
  try {
    // The mode is applied at creation, before any byte is written; umask can only remove bits.
    fd = fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
  } catch (error) {
    // Another process created it between our check and our open: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const raced = readKeyFile(file);
      if (raced) return raced;
    }
    throw keyInvalidError(`Cannot create vault key file ${file}`, error);
  }
  try {
    fs.writeSync(fd, `${Buffer.from(key).toString('base64')}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return parseVaultKey(Buffer.from(key).toString('base64'), 'file');
}

function readKeyFile(file: string): VaultKey | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw keyInvalidError(`Cannot read vault key file ${file}`, error);
  }
  if (!stat.isFile()) throw keyInvalidError(`Vault key file ${file} is not a regular file`);
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    throw keyInvalidError(
      `Vault key file ${file} has mode ${(stat.mode & 0o777).toString(8)}: others may read it. Run: chmod 600 ${file}`,
    );
  }
  return parseVaultKey(fs.readFileSync(file, 'utf8'), 'file');
}
