import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineHalVitestConfig } from '../../vitest.shared';

// Tests build sample registries with valibot, which this package never imports itself: borrow the
// exact copy @hal-ai/tools uses (adding it as a dependency here would change the shared lockfile).
const valibot = fs.realpathSync(fileURLToPath(new URL('../tools/node_modules/valibot', import.meta.url)));

export default defineHalVitestConfig({ test: { alias: { valibot } } });
