import { defineHalVitestConfig } from '../../vitest.shared';
import { conditions } from './vitest.config';

// `pnpm test:hostile`: the hostile-input suite alone, with its figures printed at the end (test/hostile/).
// `pnpm test` runs the same files through vitest.config.ts (its include covers test/**), with the same figures.

export default defineHalVitestConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@hal-ai/source'] } },
  test: {
    include: ['test/hostile/**/*.test.ts'],
    reporters: ['default', './test/hostile/hostile-reporter.ts'],
  },
});
