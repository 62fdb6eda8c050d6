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
    const report = path.join(root, group, name, 'test-output', 'vitest-results.json');
    if (!fs.existsSync(report)) continue;
    const data = JSON.parse(fs.readFileSync(report, 'utf8'));
    const pending = (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
    passed += data.numPassedTests ?? 0;
    failed += data.numFailedTests ?? 0;
    skipped += pending;
    rows.push(
      `${`${group}/${name}`.padEnd(22)} ${data.numPassedTests} passed, ${data.numFailedTests} failed, ${pending} skipped`,
    );
  }
}
console.log(rows.join('\n'));
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) process.exit(1);
