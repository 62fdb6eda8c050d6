import fs from 'node:fs';
import path from 'node:path';
import {
  loadVaultKey,
  openSealed,
  parseSealed,
  parseVaultKey,
  type VaultKey,
  type VaultStore,
} from '@hal-ai/vault';
import BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_MIGRATION_TABLE, Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { createKyselyVaultStore, VAULT_KEY_FILE, VAULT_PREVIOUS_KEY_FILE } from './ai/vault/index.js';
import type { HalConfig } from './platform/config.js';
import { findWidePermissions } from './platform/data-dir.js';
import { openPostgresDatabase } from './platform/db/database-postgres.js';
import { migrationProvider } from './platform/db/migrations/index.js';
import type { Database } from './platform/db/schema.js';
import { databasePath } from './server.js';

/** One finding of `hal doctor`. `fail` makes the exit code non-zero; `warn` and `skip` do not. */
export interface DoctorCheck {
  /** Stable id for machines, e.g. `data-folder`, `vault-key`, `cli:claude`, `connection:<id>`. */
  id: string;
  title: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  /** What was found, one line. */
  summary: string;
  /** What to do about it (commands where there is one), when the status is not `ok`. */
  fix: string[];
}

function check(
  id: string,
  title: string,
  status: DoctorCheck['status'],
  summary: string,
  fix: string[] = [],
): DoctorCheck {
  return { id, title, status, summary, fix };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The data folder's permissions: the folder and its sub-folders `0700`, every file `0600` (SPEC §11, issue #22.6). */
export function checkDataFolder(dataDir: string): DoctorCheck {
  const title = 'data folder';
  if (!fs.existsSync(dataDir)) {
    return check('data-folder', title, 'warn', `${dataDir} does not exist yet`, [
      'hal serve creates it (0700) at its first start; check HAL_DATA_DIR if you expected one',
    ]);
  }
  const wide = findWidePermissions(dataDir);
  if (wide.length === 0) {
    return check('data-folder', title, 'ok', `${dataDir} and everything HAL wrote in it are private`);
  }
  const shown = wide.slice(0, 10);
  return check(
    'data-folder',
    title,
    'fail',
    `${wide.length} path(s) others may read: ${shown.map((entry) => `${entry.path} is ${entry.mode}`).join(', ')}${
      wide.length > shown.length ? ', …' : ''
    }`,
    [
      ...new Set(
        wide.map((entry) =>
          entry.kind === 'folder' ? `chmod 700 ${entry.path}` : `chmod 600 ${entry.path}`,
        ),
      ),
    ].slice(0, 10),
  );
}

/**
 * The database HAL reads, opened for the checks: SQLite read-only (the doctor never writes to a database that is
 * being checked), or PostgreSQL. `null` with the failed checks when it cannot be opened.
 */
export interface DoctorDatabase {
  // biome-ignore lint/suspicious/noExplicitAny: the schema may be older than this release's (pending migrations).
  db: Kysely<any>;
  close(): Promise<void>;
}

/** Database integrity and reachability: `PRAGMA integrity_check` on SQLite, a connection and a query on PostgreSQL. */
export async function checkDatabase(
  config: Pick<HalConfig, 'dataDir' | 'databaseUrl'>,
): Promise<{ check: DoctorCheck; database: DoctorDatabase | null }> {
  const title = 'database';
  if (config.databaseUrl !== undefined) {
    const database = openPostgresDatabase(config.databaseUrl, { maxConnections: 1 });
    try {
      await sql`select 1`.execute(database.db);
      return {
        check: check('database', title, 'ok', 'PostgreSQL (HAL_DATABASE_URL) answers a query'),
        database,
      };
    } catch (error) {
      await database.close();
      // pg's messages name the host and the reason, never the URL's password.
      return {
        check: check('database', title, 'fail', `PostgreSQL does not answer: ${messageOf(error)}`, [
          'check that the server runs and that HAL_DATABASE_URL names it (host, port, user, password, database)',
        ]),
        database: null,
      };
    }
  }
  const file = databasePath(config.dataDir);
  if (!fs.existsSync(file)) {
    return {
      check: check('database', title, 'warn', `${file} does not exist yet`, [
        'hal serve creates it at its first start (or restore a snapshot: hal db restore <snapshot>)',
      ]),
      database: null,
    };
  }
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    const rows = sqlite.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const messages = rows.map((row) => row.integrity_check);
    if (messages.length !== 1 || messages[0] !== 'ok') {
      throw new Error(`integrity_check: ${messages.slice(0, 3).join('; ')}`);
    }
  } catch (error) {
    sqlite?.close();
    return {
      check: check('database', title, 'fail', `${file} is damaged: ${messageOf(error)}`, [
        'stop HAL and restore the newest DR snapshot: hal db restore <snapshot> (docs/operations.md, "Restore")',
      ]),
      database: null,
    };
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    check: check('database', title, 'ok', `${file}: integrity_check ok`),
    database: { db, close: () => db.destroy() },
  };
}

/** Applied versus known migrations: pending ones are named, and so are applied ones this release does not know. */
export async function checkMigrations(database: DoctorDatabase): Promise<DoctorCheck> {
  const title = 'migrations';
  const migrations = await new Migrator({ db: database.db, provider: migrationProvider }).getMigrations();
  const known = new Set(migrations.map((migration) => migration.name));
  const pending = migrations.filter((migration) => migration.executedAt === undefined).map((m) => m.name);
  let applied: string[] = [];
  try {
    applied = (await database.db.selectFrom(DEFAULT_MIGRATION_TABLE).select('name').execute()).map(
      (row: { name: string }) => row.name,
    );
  } catch {
    // No migration table: a database no HAL has started on yet; every migration is pending.
  }
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    return check(
      'migrations',
      title,
      'fail',
      `the database has migrations this release does not know: ${unknown.join(', ')}`,
      ['a newer HAL wrote it: run that release, or restore the database copy taken before the upgrade'],
    );
  }
  if (pending.length > 0) {
    return check(
      'migrations',
      title,
      'fail',
      `${pending.length} of ${migrations.length} migrations pending: ${pending.join(', ')}`,
      [
        'hal db migrate (hal serve also migrates at start; back up hal.db first, docs/operations.md "Upgrade")',
      ],
    );
  }
  return check('migrations', title, 'ok', `all ${migrations.length} migrations applied`);
}

/** The vault keys as `hal serve` would load them, without creating or changing any key file. */
export interface DoctorKeys {
  /** The current key; `null` when it is missing or does not load (see `problems`). */
  current: VaultKey | null;
  /** Previous keys given for a rotation, with where each came from. */
  previous: Array<{ key: VaultKey; from: string }>;
  /** Why a key does not load, as failed checks. */
  problems: DoctorCheck[];
  keyFile: string;
}

/** Loads the current and previous vault keys read-only (`hal serve` would create a missing key file). */
export function loadDoctorKeys(
  config: Pick<HalConfig, 'dataDir' | 'vaultKey'>,
  env: Record<string, string | undefined>,
): DoctorKeys {
  const title = 'vault key';
  const keyFile = path.join(config.dataDir, VAULT_KEY_FILE);
  const previousFile = path.join(config.dataDir, VAULT_PREVIOUS_KEY_FILE);
  const problems: DoctorCheck[] = [];
  const fixKey = 'generate one with: openssl rand -base64 32 — or restore the key the vault was sealed under';
  let current: VaultKey | null = null;
  if (config.vaultKey !== undefined) {
    try {
      current = parseVaultKey(config.vaultKey, 'env');
    } catch (error) {
      problems.push(check('vault-key', title, 'fail', messageOf(error), [fixKey]));
    }
  } else if (fs.existsSync(keyFile)) {
    try {
      current = loadVaultKey({ env: {}, keyFile, create: false });
    } catch (error) {
      problems.push(check('vault-key', title, 'fail', messageOf(error), [`chmod 600 ${keyFile}`, fixKey]));
    }
  }
  const previous: DoctorKeys['previous'] = [];
  if (env.HAL_VAULT_PREVIOUS_KEY !== undefined) {
    try {
      previous.push({ key: parseVaultKey(env.HAL_VAULT_PREVIOUS_KEY), from: 'HAL_VAULT_PREVIOUS_KEY' });
    } catch (error) {
      problems.push(
        check('vault-key', title, 'fail', `HAL_VAULT_PREVIOUS_KEY: ${messageOf(error)}`, [
          'set HAL_VAULT_PREVIOUS_KEY to the exact old value of HAL_VAULT_KEY, or remove it',
        ]),
      );
    }
  }
  if (fs.existsSync(previousFile)) {
    try {
      previous.push({
        key: loadVaultKey({ env: {}, keyFile: previousFile, create: false }),
        from: previousFile,
      });
    } catch (error) {
      problems.push(check('vault-key', title, 'fail', messageOf(error), [`chmod 600 ${previousFile}`]));
    }
  }
  return { current, previous, problems, keyFile };
}

/**
 * The vault key: present, well-formed and private, and opening every stored secret. Says whether a previous key
 * (`HAL_VAULT_PREVIOUS_KEY`, `vault.key.previous`) is still needed — entries are sealed under it — or can go.
 * Nothing is written: the re-seal under the current key is what `hal serve` does at its start.
 */
export async function checkVaultKey(
  config: Pick<HalConfig, 'dataDir' | 'vaultKey'>,
  env: Record<string, string | undefined>,
  database: DoctorDatabase | null,
): Promise<DoctorCheck[]> {
  const title = 'vault key';
  const { current, previous, problems, keyFile } = loadDoctorKeys(config, env);
  let store: VaultStore | null = null;
  let ids: string[] = [];
  if (database !== null) {
    store = createKyselyVaultStore({ db: database.db });
    try {
      ids = await store.list();
    } catch {
      // No vault table yet (pending migrations, reported there): nothing sealed to open.
      store = null;
    }
  }
  if (problems.length > 0) return problems;
  if (current === null) {
    // Only a missing key file gets here.
    if (ids.length > 0 && previous.length === 0) {
      return [
        check(
          'vault-key',
          title,
          'fail',
          `${keyFile} is missing but the vault holds ${ids.length} sealed entries`,
          [
            `restore ${keyFile} from your key backup (or set HAL_VAULT_KEY) — a new key would open none of them`,
          ],
        ),
      ];
    }
    if (previous.length > 0) {
      return [
        check('vault-key', title, 'warn', `${keyFile} does not exist; a previous key is present`, [
          'hal serve creates a new key at its start and re-seals every entry under it (a key rotation)',
        ]),
      ];
    }
    return [
      check(
        'vault-key',
        title,
        'ok',
        `${keyFile} does not exist yet: hal serve creates it (0600) at its first start`,
      ),
    ];
  }
  const keys = [current, ...previous.map((entry) => entry.key)];
  const failed: string[] = [];
  const sealedUnder = new Map<string, number>();
  for (const id of store === null ? [] : ids) {
    const sealed = (await store?.read(id)) ?? '';
    const keyId = parseSealed(sealed)?.keyId ?? 'unreadable';
    try {
      openSealed(keys, id, sealed);
      sealedUnder.set(keyId, (sealedUnder.get(keyId) ?? 0) + 1);
    } catch {
      failed.push(id);
    }
  }
  const source = current.source === 'env' ? 'HAL_VAULT_KEY' : keyFile;
  const results: DoctorCheck[] = [];
  if (failed.length > 0) {
    results.push(
      check(
        'vault-key',
        title,
        'fail',
        `${failed.length} of ${ids.length} stored secrets do not open with ${source}${
          previous.length > 0 ? ' or the previous key' : ''
        }: ${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', …' : ''}`,
        [
          'this is not the key the vault was sealed under: restore the right key file or HAL_VAULT_KEY',
          'after a rotation, give the old key as HAL_VAULT_PREVIOUS_KEY (or vault.key.previous) for one start',
        ],
      ),
    );
  } else {
    results.push(
      check(
        'vault-key',
        title,
        'ok',
        ids.length === 0
          ? `${source} is valid (key ${current.id}); the vault holds no secret yet`
          : `${source} (key ${current.id}) opens all ${ids.length} stored secrets`,
      ),
    );
  }
  for (const { key, from } of previous) {
    const count = sealedUnder.get(key.id) ?? 0;
    results.push(
      count > 0
        ? check(
            'vault-previous-key',
            'previous vault key',
            'warn',
            `${from} is still needed: ${count} secret(s) are sealed under it`,
            ['start HAL once: it re-seals them under the current key; then the previous key may go'],
          )
        : check(
            'vault-previous-key',
            'previous vault key',
            'warn',
            `${from} is no longer needed: no stored secret is sealed under it`,
            [
              `remove ${from === 'HAL_VAULT_PREVIOUS_KEY' ? 'HAL_VAULT_PREVIOUS_KEY from the environment file' : from} once no DR snapshot sealed under it is needed`,
            ],
          ),
    );
  }
  return results;
}
