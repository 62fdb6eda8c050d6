import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The file in the data folder where `hal serve` leaves its PostgreSQL URL for `hal mcp`. An attached CLI (Claude Code,
 * Codex) starts `hal-mcp` with only `HAL_DATA_DIR`: the URL may carry a password, so it never travels in the MCP
 * config or the CLI's environment; the data folder (0700) is the one place both processes already share.
 */
export const DATABASE_URL_FILE = 'database-url';

/** The path of {@link DATABASE_URL_FILE} in a data folder. */
export function databaseUrlPath(dataDir: string): string {
  return path.join(dataDir, DATABASE_URL_FILE);
}

/**
 * Records the database `hal serve` runs on: a PostgreSQL URL is written `0600` (a fresh file renamed over the old one,
 * so a reader never sees half of it and an older, wider file is replaced, not reused); SQLite (`undefined`) removes a
 * file a former PostgreSQL run left, so `hal mcp` does not open a database HAL no longer uses.
 */
export function recordServingDatabaseUrl(dataDir: string, databaseUrl: string | undefined): void {
  const target = databaseUrlPath(dataDir);
  if (databaseUrl === undefined) {
    fs.rmSync(target, { force: true });
    return;
  }
  // The folder may not exist before the first start; its mode is the runtime's business (it narrows and warns).
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temporary, `${databaseUrl}\n`, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The PostgreSQL URL `hal serve` recorded in `dataDir` ({@link recordServingDatabaseUrl}), or `undefined` when it
 * recorded none (SQLite, or a HAL older than this file).
 */
export function readServingDatabaseUrl(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(databaseUrlPath(dataDir), 'utf8').trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
