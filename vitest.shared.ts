import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

/**
 * The test network rule, enforced (scripts/test-loopback-only.mjs): sockets to loopback only, loopback names only.
 * Set in `NODE_OPTIONS` when the config loads, so vitest's worker processes and every Node child a test spawns
 * (`hal serve`, `hal mcp`, the CLIs) start with it; `setupFiles` installs it again for a worker started without it.
 */
export const LOOPBACK_GUARD = fileURLToPath(new URL('./scripts/test-loopback-only.mjs', import.meta.url));
const guardOption = `--import=${LOOPBACK_GUARD}`;
const nodeOptions = process.env.NODE_OPTIONS ?? '';
if (!nodeOptions.includes(guardOption)) process.env.NODE_OPTIONS = `${nodeOptions} ${guardOption}`.trim();

/**
 * The reporters every package's run uses: vitest's default, and the JSON report that feeds
 * scripts/test-summary.mjs, which prints one closing line for the whole repo. A second run of a package (apps/hal's
 * PostgreSQL suites) names its own report file, so it never overwrites the first. `extra` adds a package's own.
 */
export function halReporters(
  ...extra: string[]
): NonNullable<NonNullable<ViteUserConfig['test']>['reporters']> {
  return [
    'default',
    ['json', { outputFile: process.env.HAL_VITEST_JSON_REPORT ?? 'test-output/vitest-results.json' }],
    ...extra,
  ];
}

/**
 * Shared vitest settings for every package. Workspace packages resolve to their TypeScript
 * sources through the `@hal-ai/source` export condition, so tests and type-checks never
 * depend on a stale `dist/`.
 */
export function defineHalVitestConfig(overrides: ViteUserConfig = {}): ViteUserConfig {
  const conditions = ['@hal-ai/source', 'module', 'node', 'import', 'default'];
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@hal-ai/source'] } },
    ...overrides,
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      environment: 'node',
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      passWithNoTests: true,
      reporters: halReporters(),
      ...overrides.test,
      setupFiles: [LOOPBACK_GUARD, ...[overrides.test?.setupFiles ?? []].flat()],
    },
  });
}
