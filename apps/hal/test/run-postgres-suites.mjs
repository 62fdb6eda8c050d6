#!/usr/bin/env node
// The core's store tests a second time, on PostgreSQL (SPEC §15), when HAL_TEST_DATABASE_URL names a test server
// (`scripts/test-postgres.sh start` starts one). The audit, room-store, database, room-event-hub and two-`hal serve`
// (`test/hal-instances-postgres.test.ts`) suites need no second run: they run in the ordinary `vitest run` when the
// URL is set, and are skipped, naming why, without it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const app = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const report = path.join(app, 'test-output', 'vitest-results-postgres.json');
fs.rmSync(report, { force: true });
if (!process.env.HAL_TEST_DATABASE_URL?.trim()) {
  console.log(
    'PostgreSQL suites skipped: HAL_TEST_DATABASE_URL is not set (scripts/test-postgres.sh starts a server)',
  );
  process.exit(0);
}
console.log('PostgreSQL suites: the core store tests on HAL_TEST_DATABASE_URL');
const result = spawnSync('npx', ['vitest', 'run', 'src/domain/core'], {
  cwd: app,
  stdio: 'inherit',
  env: { ...process.env, HAL_TEST_DIALECT: 'postgres', HAL_VITEST_JSON_REPORT: report },
});
if (result.status !== 0) process.exit(result.status ?? 1);
// A moved folder must not turn this run into a silent pass over nothing.
const ran = fs.existsSync(report) ? JSON.parse(fs.readFileSync(report, 'utf8')).numTotalTests : 0;
if (!ran) {
  console.error('PostgreSQL suites: no test ran (is src/domain/core still where the core store tests are?)');
  process.exit(1);
}
