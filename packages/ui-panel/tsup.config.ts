import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: pure renderers and the mount functions, for bundlers.
    entry: { index: 'src/index.ts', 'i18n/index': 'src/i18n/index.ts' },
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
      // One stylesheet: the panel's own, then xterm.js's (the terminal needs it to lay out its rows).
      const require = createRequire(import.meta.url);
      const xtermCss = require.resolve('@xterm/xterm/css/xterm.css');
      const css = await Promise.all([
        fs.readFile(new URL('./src/panel.css', import.meta.url), 'utf8'),
        fs.readFile(xtermCss, 'utf8'),
      ]);
      await fs.writeFile(new URL('./dist/browser/panel.css', import.meta.url), css.join('\n'));
    },
  },
]);
