import fs from 'node:fs';

/** What {@link preparePrivateDataDir} found and changed. */
export interface DataDirReport {
  /** The folder's mode before it was narrowed to 0700 (e.g. `0755`), or null when it already was private. */
  widenedMode: string | null;
}

/**
 * Creates the data folder `0700`, or narrows an existing one that is wider (it holds the database, the vault key,
 * artifacts and snapshots: nobody but HAL's own account may list it). The caller says so at start-up when the
 * folder was wider, so an operator learns that something had been readable.
 */
export function preparePrivateDataDir(dataDir: string): DataDirReport {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dataDir).mode & 0o777;
  if ((mode & 0o077) === 0) return { widenedMode: null };
  fs.chmodSync(dataDir, 0o700);
  return { widenedMode: `0${mode.toString(8)}` };
}

/**
 * Makes a database file and its `-wal` / `-shm` companions `0600` before SQLite opens it: SQLite creates the
 * companions with the main file's mode, so a private main file keeps every later one private too, whatever the
 * process umask. Existing wider files (an older HAL made them `0644`) are narrowed.
 */
export function preparePrivateDatabaseFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      fs.chmodSync(`${file}${suffix}`, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
