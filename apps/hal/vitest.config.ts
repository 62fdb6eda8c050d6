import { defineHalVitestConfig, halReporters } from '../../vitest.shared';

// Vitest hands the resolve conditions to its worker processes as `--conditions`; with `import` among them a CommonJS
// package that `require`s a dual package (`pg` → `pg-pool`) is given the ESM build. HAL's own conditions minus it.
/** HAL's resolve conditions for tests (also used by `vitest.hostile.config.ts`). */
export const conditions = ['@hal-ai/source', 'module', 'node', 'default'];

export default defineHalVitestConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@hal-ai/source'] } },
  test: {
    // The same reporters as every package, plus the hostile suite's figures (test/hostile/), which `pnpm test` runs too.
    reporters: halReporters('./test/hostile/hostile-reporter.ts'),
  },
});
