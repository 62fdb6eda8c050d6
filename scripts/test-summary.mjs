#!/usr/bin/env node
// Adds up every workspace package's vitest JSON report and prints one closing line
// ("N passed, N failed, N skipped") so a reader — or CI — sees the whole suite at once.
// Exits non-zero when any test failed or when no test ran at all.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
let passed = 0;
let failed = 0;
let skipped = 0;
const rows = [];
for (const group of ['packages', 'apps']) {
  for (const name of fs.readdirSync(path.join(root, group))) {
    // `vitest-results-postgres.json`: apps/hal's store tests run a second time on PostgreSQL (when configured).
    for (const file of ['vitest-results.json', 'vitest-results-postgres.json']) {
      const report = path.join(root, group, name, 'test-output', file);
      if (!fs.existsSync(report)) continue;
      const data = JSON.parse(fs.readFileSync(report, 'utf8'));
      const pending = (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
      passed += data.numPassedTests ?? 0;
      failed += data.numFailedTests ?? 0;
      skipped += pending;
      rows.push(
        `${`${group}/${name}${file.includes('postgres') ? ' (pg)' : ''}`.padEnd(22)} ${data.numPassedTests} passed, ${data.numFailedTests} failed, ${pending} skipped`,
      );
    }
  }
}
if (!process.env.HAL_TEST_DATABASE_URL?.trim()) {
  rows.push(
    'PostgreSQL suites skipped: HAL_TEST_DATABASE_URL is not set (scripts/test-postgres.sh starts a server)',
  );
}
console.log(rows.join('\n'));
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) process.exit(1);
