// Module hooks that let Node 20 run HAL's TypeScript sources. Used only when HAL itself runs from its sources (the
// test runner, a checkout without a build) to start `hal mcp` for a local CLI; the built bundle never loads this
// file. They map a relative `./x.js` import to `./x.ts` when only the latter exists, and strip the types of `.ts`
// files one file at a time with esbuild (the transform the bundler uses; like the test runner's, it needs no types).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !relative || !specifier.endsWith('.js')) throw error;
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { code } = await transform(await readFile(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    // Node 20.10+ reads `with { type: 'json' }`; esbuild would drop the attribute for plain node20.
    supported: { 'import-attributes': true },
    sourcefile: file,
    sourcemap: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
