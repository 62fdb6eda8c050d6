import fs from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts', 'src/mcp-bin.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Workspace libraries are bundled from their sources' built output; npm packages stay external.
  banner: { js: '' },
  // The skill document ships next to the bundle: `src/ai/skill.ts` looks for `dist/hal-skill.md` first.
  onSuccess: async () => {
    await fs.copyFile(
      new URL('../../skill/hal-skill.md', import.meta.url),
      new URL('./dist/hal-skill.md', import.meta.url),
    );
  },
});
