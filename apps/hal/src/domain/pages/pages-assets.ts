import fs from 'node:fs/promises';

/**
 * The page assets (`console.css`, the favicon) sit in `assets/` beside the module that reads them: `src/domain/pages/assets`
 * when HAL runs from its sources, and `dist/assets` in the bundle (the build copies the folder there), so the built
 * package serves them with no source tree beside it.
 */
const ASSETS_DIR = new URL('./assets/', import.meta.url);

const cache = new Map<string, Buffer>();

/**
 * One file of the page assets folder (read once, then kept).
 *
 * @throws Error when the file is missing: a build that lost its assets must show, not serve an unstyled console.
 */
export async function readPageAsset(fileName: string): Promise<Buffer> {
  if (!/^[\w.-]+$/.test(fileName) || fileName.startsWith('.'))
    throw new Error(`Not a page asset: ${fileName}`);
  let content = cache.get(fileName);
  if (content === undefined) {
    content = await fs.readFile(new URL(fileName, ASSETS_DIR));
    cache.set(fileName, content);
  }
  return content;
}

/** The console stylesheet (read once). */
export async function readConsoleCss(): Promise<string> {
  return (await readPageAsset('console.css')).toString('utf8');
}
