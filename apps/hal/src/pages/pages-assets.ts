import fs from 'node:fs/promises';

/**
 * Where `console.css` lies: beside this module when running from sources, and under `src/pages/assets` when
 * running the bundle in `dist/` (tsup bundles code, not stylesheets).
 */
const CANDIDATES = [
  new URL('./assets/console.css', import.meta.url),
  new URL('../src/pages/assets/console.css', import.meta.url),
];

let cached: string | undefined;

/** The console stylesheet (read once). */
export async function readConsoleCss(): Promise<string> {
  if (cached !== undefined) return cached;
  for (const candidate of CANDIDATES) {
    try {
      cached = await fs.readFile(candidate, 'utf8');
      return cached;
    } catch {
      // try the next place
    }
  }
  cached = '';
  return cached;
}
