import fs from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: pure renderers and the mount functions, for bundlers.
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: true,
    clean: false,
    sourcemap: true,
    target: 'es2022',
    platform: 'browser',
  },
  {
    // The browser bundle HAL serves at /ops/assets/panel.js: one file, markdown-it and DOMPurify inside.
    entry: { panel: 'src/browser.ts' },
    outDir: 'dist/browser',
    format: ['esm'],
    dts: false,
    clean: false,
    sourcemap: false,
    minify: true,
    target: 'es2022',
    platform: 'browser',
    noExternal: [/.*/],
    onSuccess: async () => {
      await fs.copyFile(
        new URL('./src/panel.css', import.meta.url),
        new URL('./dist/browser/panel.css', import.meta.url),
      );
    },
  },
]);
