import { spawn as spawnProcess } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import type { OpenDatabase } from './database.js';

/** A verdict on a written backup. */
export interface BackupCheck {
  ok: boolean;
  detail: string;
}

/**
 * How DR snapshots copy HAL's database (SPEC §1 DR, §15): SQLite's online backup into a single-file database, or
 * PostgreSQL's `pg_dump` in custom format. The DR functions name, hash, rename, record and prune the file alike.
 */
export interface DatabaseBackup {
  /** The snapshot file's suffix: `.db` (SQLite) or `.dump` (`pg_dump -Fc`). */
  extension: '.db' | '.dump';
  /** Writes a complete copy of the live database to `file` (which does not exist yet). */
  write(file: string): Promise<void>;
  /** Checks a written copy: SQLite's `PRAGMA integrity_check`, or `pg_restore --list` reading the whole archive. */
  verify(file: string): Promise<BackupCheck>;
}

/** Opens a SQLite snapshot read-only and runs `PRAGMA integrity_check`. */
export function verifySqliteSnapshot(file: string): BackupCheck {
  let copy: BetterSqlite3.Database | null = null;
  try {
    copy = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    const rows = copy.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const messages = rows.map((r) => r.integrity_check);
    return messages.length === 1 && messages[0] === 'ok'
      ? { ok: true, detail: 'integrity_check: ok' }
      : { ok: false, detail: `integrity_check: ${messages.slice(0, 5).join('; ')}` };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    copy?.close();
  }
}

/** SQLite's online backup (readers and writers go on meanwhile), turned into one self-contained file. */
export function createSqliteBackup(sqlite: BetterSqlite3.Database): DatabaseBackup {
  return {
    extension: '.db',
    async write(file) {
      await sqlite.backup(file);
      // The copy inherits WAL mode; a self-contained single file is what a restore needs (and what we hash).
      const copy = new BetterSqlite3(file);
      try {
        copy.pragma('journal_mode = DELETE');
      } finally {
        copy.close();
      }
    },
    async verify(file) {
      return verifySqliteSnapshot(file);
    },
  };
}

/** Settings of {@link createPostgresBackup}. */
export interface PostgresBackupSettings {
  /** `pg_dump` (default: the one on `PATH`). */
  pgDump?: string;
  /** `pg_restore` (default: the one on `PATH`). */
  pgRestore?: string;
  /** Starts a child process (default `node:child_process` `spawn`). */
  spawn?: typeof spawnProcess;
}

/** The URL without its password, plus the password for `PGPASSWORD` (a password never goes on a command line). */
function splitPassword(url: string): { url: string; password: string | undefined } {
  const parsed = new URL(url);
  const password = parsed.password === '' ? undefined : decodeURIComponent(parsed.password);
  parsed.password = '';
  return { url: parsed.toString(), password };
}

function run(
  spawn: typeof spawnProcess,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * PostgreSQL's own consistent dump (`pg_dump --format=custom`, one snapshot of the database while instances keep
 * writing), checked by `pg_restore --list`, which reads the archive's whole table of contents. Restoring it is
 * `pg_restore --clean --dbname …` into a stopped deployment's database.
 */
export function createPostgresBackup(
  databaseUrl: string,
  settings: PostgresBackupSettings = {},
): DatabaseBackup {
  const spawn = settings.spawn ?? spawnProcess;
  const { url, password } = splitPassword(databaseUrl);
  const env = { ...process.env, ...(password === undefined ? {} : { PGPASSWORD: password }) };
  return {
    extension: '.dump',
    async write(file) {
      const result = await run(
        spawn,
        settings.pgDump ?? 'pg_dump',
        ['--format=custom', '--no-password', `--file=${file}`, `--dbname=${url}`],
        env,
      );
      if (result.code !== 0) {
        throw new Error(`pg_dump failed (exit ${result.code}): ${result.stderr.trim().slice(0, 500)}`);
      }
    },
    async verify(file) {
      try {
        const result = await run(spawn, settings.pgRestore ?? 'pg_restore', ['--list', file], env);
        if (result.code !== 0) {
          return { ok: false, detail: `pg_restore --list: ${result.stderr.trim().slice(0, 300)}` };
        }
        const tables = result.stdout.split('\n').filter((line) => / TABLE DATA /.test(line)).length;
        return tables > 0
          ? { ok: true, detail: `pg_restore --list: ok (${tables} tables)` }
          : { ok: false, detail: 'pg_restore --list: the archive holds no table data' };
      } catch (error) {
        return { ok: false, detail: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

/** The backup that fits an open database. */
export function createDatabaseBackup(database: OpenDatabase): DatabaseBackup {
  return database.dialect === 'sqlite'
    ? createSqliteBackup(database.sqlite)
    : createPostgresBackup(database.url);
}
