import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** One released version of HAL. */
export interface ChangelogEntry {
  version: string;
  date: string | null;
  changes: string[];
}

/** `## 0.1.0 — 2026-11-30` (em dash, en dash or hyphen). */
const HEADING = /^##\s+v?(\d+\.\d+\.\d+[^\s]*)\s*(?:[—–-]\s*(\d{4}-\d{2}-\d{2}))?\s*$/;

/** Parses the version history: `##` sections, each with `-` / `*` bullet lines (continuations joined). */
export function parseVersionHistory(markdown: string): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  let current: ChangelogEntry | null = null;
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const heading = HEADING.exec(line);
    if (heading) {
      current = { version: heading[1] as string, date: heading[2] ?? null, changes: [] };
      entries.push(current);
      continue;
    }
    if (!current) continue;
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (bullet) current.changes.push((bullet[1] as string).trim());
    else if (/^\s+\S/.test(line) && current.changes.length > 0) {
      const last = current.changes.length - 1;
      current.changes[last] = `${current.changes[last]} ${line.trim()}`;
    }
  }
  return entries;
}

/** The places `VERSION-HISTORY.md` can be, from source (`src/core`) or from the bundle (`dist`). */
export const VERSION_HISTORY_CANDIDATES = [
  fileURLToPath(new URL('../../../VERSION-HISTORY.md', import.meta.url)),
  fileURLToPath(new URL('../VERSION-HISTORY.md', import.meta.url)),
];

/** Reads and parses the first version history file found. */
export async function readVersionHistory(
  files: string[] = VERSION_HISTORY_CANDIDATES,
): Promise<ChangelogEntry[]> {
  for (const file of files) {
    try {
      return parseVersionHistory(await fs.readFile(file, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return [];
}
