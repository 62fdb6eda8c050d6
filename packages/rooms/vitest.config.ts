import { fileURLToPath } from 'node:url';
import { defineHalVitestConfig } from '../../vitest.shared';

// Tests define fixture tools with valibot, which is a dependency of @hal-ai/tools, not of rooms:
// resolve it through the tools package instead of adding a dependency to the shared install.
export default defineHalVitestConfig({
  test: {
    alias: { valibot: fileURLToPath(new URL('../tools/node_modules/valibot', import.meta.url)) },
  },
});
