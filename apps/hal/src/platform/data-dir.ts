import fs from 'node:fs';
import path from 'node:path';

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

/** A path in the data folder that others than HAL's account may read, list or write. */
export interface WidePermission {
  path: string;
  kind: 'folder' | 'file';
  /** Its mode, e.g. `0644`. */
  mode: string;
  /** The mode it should have: `0700` for a folder, `0600` for a file. */
  expected: '0700' | '0600';
}

/** Folders of the data folder whose content keeps its own modes: deployed releases run from `agents/`. */
const OWN_MODE_FOLDERS = new Set(['agents']);

/**
 * The rules {@link preparePrivateDataDir} and {@link preparePrivateDatabaseFile} apply, checked without changing
 * anything (for `hal doctor`): the folder and its sub-folders `0700`, every file HAL wrote `0600` — nothing with a
 * group or other bit. The agents' deploy folders are skipped (a deployed release keeps its executables' modes);
 * symbolic links are not followed. An absent folder has nothing wide in it.
 */
export function findWidePermissions(dataDir: string): WidePermission[] {
  const found: WidePermission[] = [];
  const visit = (target: string, depth: number) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    const folder = stat.isDirectory();
    if ((mode & 0o077) !== 0) {
      found.push({
        path: target,
        kind: folder ? 'folder' : 'file',
        mode: `0${mode.toString(8)}`,
        expected: folder ? '0700' : '0600',
      });
    }
    if (!folder) return;
    for (const name of fs.readdirSync(target)) {
      if (depth === 0 && OWN_MODE_FOLDERS.has(name)) continue;
      visit(path.join(target, name), depth + 1);
    }
  };
  visit(dataDir, 0);
  return found;
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
