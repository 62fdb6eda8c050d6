import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import packageJson from '../../package.json' with { type: 'json' };
import { DEFAULT_SCRYPT_PARAMS, type ScryptParams } from '../domain/auth/auth-password.js';

/** The version of this HAL build (from `apps/hal/package.json`), as `/api/health` and `hal --version` report it. */
export const HAL_VERSION: string = packageJson.version;

/** HAL's settings, read once from the environment at start-up (SPEC §14 "Start-up"). */
export interface HalConfig {
  /** Folder for `hal.db`, the vault key file and agent data. */
  dataDir: string;
  /** Interface to listen on. */
  host: string;
  /** Port to listen on; `0` picks a free one. */
  port: number;
  /** How long a password entry keeps `requireRecent` routes open, in seconds. */
  reauthWindowS: number;
  /** Provider calls fail when the first byte takes longer than this. */
  providerFirstByteTimeoutMs: number;
  /** Provider streams fail when they stay silent longer than this. */
  providerIdleTimeoutMs: number;
  /**
   * `HAL_DATABASE_URL=postgres://…`: every store uses this PostgreSQL database (several instances, SPEC §15); unset →
   * SQLite at `<dataDir>/hal.db`. It may carry a password: never log or return it.
   */
  databaseUrl: string | undefined;
  /** The vault key from `HAL_VAULT_KEY`, if set (else the vault uses a key file in `dataDir`). */
  vaultKey: string | undefined;
  /** Trust `X-Forwarded-Proto` / `X-Forwarded-For` from a reverse proxy (`HAL_TRUST_PROXY=1`). */
  trustProxy: boolean;
  /**
   * `HAL_WEB_ALLOW_PRIVATE=1`: web fetches may reach loopback and private addresses (tests, a private intranet);
   * never the cloud metadata address. Logged as a warning at start.
   */
  webAllowPrivate: boolean;
  /** Default cap for request bodies other than multipart uploads, in bytes. */
  bodyLimitBytes: number;
  /** Default cap for `multipart/form-data` bodies (release uploads), in bytes. */
  uploadLimitBytes: number;
  /**
   * `HAL_PUBLIC_URL`: the origin operators' browsers use (e.g. `https://hal.example.com` behind a proxy). URLs HAL
   * hands out are built from it, and a request whose `Host` names neither it nor the listen address is refused.
   * Unset: the listen address.
   */
  publicUrl: string | undefined;
  /** scrypt parameters operator passwords are hashed with; older hashes are upgraded at the next login. */
  passwordHashing: Readonly<ScryptParams>;
  /**
   * Provider request bodies reuse the encoding of what repeats (tool lists, system prompts) from one bounded
   * cache per HAL (`HAL_PROVIDER_BODY_CACHE`, default on; `0` sends `JSON.stringify` of every body).
   */
  providerBodyCache: boolean;
  /**
   * The hot queries (a model turn's, the session check) are compiled by kysely once per shape and only bound
   * afterwards (`HAL_DATABASE_COMPILED_QUERIES`, default on; `0` builds every query afresh).
   */
  databaseCompiledQueries: boolean;
  /** SQLite reuses prepared statements per SQL text (`HAL_DATABASE_STATEMENT_CACHE`, default on). */
  databaseStatementCache: boolean;
  /**
   * PostgreSQL sends the hot queries as named prepared statements, parsed once per connection
   * (`HAL_DATABASE_PREPARED_STATEMENTS`, default on; `0` sends them unnamed).
   */
  databasePreparedStatements: boolean;
  /**
   * PostgreSQL appends a room message (its `seq` and its row) in one statement instead of a transaction of four
   * round trips (`HAL_DATABASE_SINGLE_STATEMENT_APPEND`, default on).
   */
  databaseSingleStatementAppend: boolean;
}

/** The defaults every unset variable falls back to. */
export const DEFAULT_CONFIG: Readonly<HalConfig> = Object.freeze({
  dataDir: './data',
  host: '127.0.0.1',
  port: 7420,
  reauthWindowS: 600,
  providerFirstByteTimeoutMs: 60_000,
  providerIdleTimeoutMs: 60_000,
  databaseUrl: undefined,
  vaultKey: undefined,
  trustProxy: false,
  webAllowPrivate: false,
  bodyLimitBytes: 1024 * 1024,
  uploadLimitBytes: 200 * 1024 * 1024,
  publicUrl: undefined,
  passwordHashing: DEFAULT_SCRYPT_PARAMS,
  providerBodyCache: true,
  databaseCompiledQueries: true,
  databaseStatementCache: true,
  databasePreparedStatements: true,
  databaseSingleStatementAppend: true,
});

function readInteger(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim();
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new HalError(
      'validation_failed',
      `${name} must be an integer from ${min} to ${max}, got "${raw}"`,
      {
        details: { variable: name },
      },
    );
  }
  return Number(value);
}

/**
 * Reads `HAL_PUBLIC_URL`: an http(s) origin with no path, query, or credentials; `undefined` when unset.
 *
 * @throws HalError `validation_failed` naming the variable for anything else.
 */
export function readPublicUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const fail = (): never => {
    throw new HalError(
      'validation_failed',
      `HAL_PUBLIC_URL must be an http(s) origin such as https://hal.example.com, got "${value}"`,
      { details: { variable: 'HAL_PUBLIC_URL' } },
    );
  };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail();
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    fail();
  return url.origin;
}

function readFlag(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new HalError('validation_failed', `${name} must be 1 or 0, got "${raw}"`, {
    details: { variable: name },
  });
}

/**
 * Reads and validates HAL's environment. A bad value throws a `validation_failed` HalError whose
 * message names the variable, so `hal serve` can print it and exit 1.
 *
 * @example
 * const config = loadConfig({ HAL_DATA_DIR: '/var/lib/hal', HAL_PORT: '0' });
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): HalConfig {
  const host = env.HAL_HOST?.trim() || DEFAULT_CONFIG.host;
  if (/[\s/]/.test(host)) {
    throw new HalError('validation_failed', `HAL_HOST must be a host name or address, got "${host}"`, {
      details: { variable: 'HAL_HOST' },
    });
  }
  const vaultKey = env.HAL_VAULT_KEY?.trim() || undefined;
  const databaseUrl = env.HAL_DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    // The value may hold a password: name the variable, never echo it.
    throw new HalError('validation_failed', 'HAL_DATABASE_URL must be a postgres:// (or postgresql://) URL', {
      details: { variable: 'HAL_DATABASE_URL' },
    });
  }
  return {
    dataDir: path.resolve(env.HAL_DATA_DIR?.trim() || DEFAULT_CONFIG.dataDir),
    host,
    port: readInteger(env, 'HAL_PORT', DEFAULT_CONFIG.port, 0, 65_535),
    reauthWindowS: readInteger(env, 'HAL_REAUTH_WINDOW_S', DEFAULT_CONFIG.reauthWindowS, 1, 86_400),
    providerFirstByteTimeoutMs: readInteger(
      env,
      'HAL_PROVIDER_FIRST_BYTE_TIMEOUT_MS',
      DEFAULT_CONFIG.providerFirstByteTimeoutMs,
      1,
      3_600_000,
    ),
    providerIdleTimeoutMs: readInteger(
      env,
      'HAL_PROVIDER_IDLE_TIMEOUT_MS',
      DEFAULT_CONFIG.providerIdleTimeoutMs,
      1,
      3_600_000,
    ),
    databaseUrl,
    vaultKey,
    trustProxy: readFlag(env, 'HAL_TRUST_PROXY'),
    webAllowPrivate: readFlag(env, 'HAL_WEB_ALLOW_PRIVATE'),
    bodyLimitBytes: DEFAULT_CONFIG.bodyLimitBytes,
    uploadLimitBytes: readInteger(env, 'HAL_UPLOAD_LIMIT_BYTES', DEFAULT_CONFIG.uploadLimitBytes, 1, 2 ** 40),
    publicUrl: readPublicUrl(env.HAL_PUBLIC_URL),
    passwordHashing: DEFAULT_CONFIG.passwordHashing,
    providerBodyCache: readFlag(env, 'HAL_PROVIDER_BODY_CACHE', DEFAULT_CONFIG.providerBodyCache),
    databaseCompiledQueries: readFlag(
      env,
      'HAL_DATABASE_COMPILED_QUERIES',
      DEFAULT_CONFIG.databaseCompiledQueries,
    ),
    databaseStatementCache: readFlag(
      env,
      'HAL_DATABASE_STATEMENT_CACHE',
      DEFAULT_CONFIG.databaseStatementCache,
    ),
    databasePreparedStatements: readFlag(
      env,
      'HAL_DATABASE_PREPARED_STATEMENTS',
      DEFAULT_CONFIG.databasePreparedStatements,
    ),
    databaseSingleStatementAppend: readFlag(
      env,
      'HAL_DATABASE_SINGLE_STATEMENT_APPEND',
      DEFAULT_CONFIG.databaseSingleStatementAppend,
    ),
  };
}
