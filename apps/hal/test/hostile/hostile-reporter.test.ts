import { describe, expect, it } from 'vitest';
import type { TestCase } from 'vitest/node';
import HostileReporter, { HOSTILE_CATEGORIES } from './hostile-reporter.js';

// The reporter is the suite's closing figure: it must not drop a category whose test was skipped or failed.
function testCase(category: string | null, state: 'passed' | 'failed', figures: Record<string, number> = {}) {
  const hostile =
    category === null
      ? undefined
      : {
          category,
          tried: 3,
          refused: 3,
          secretsLeaked: 0,
          badExecutions: 0,
          blockedConnections: 0,
          scriptsRun: 0,
          kills: 0,
          halfDone: 0,
          messagesLost: 0,
          ...figures,
        };
  return {
    module: { moduleId: '/repo/apps/hal/test/hostile/some.test.ts' },
    meta: () => ({ hostile }),
    result: () => ({ state }),
  } as unknown as TestCase;
}

function printed(run: (reporter: HostileReporter) => void): string {
  const reporter = new HostileReporter();
  const chunks: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    run(reporter);
    reporter.onTestRunEnd();
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

describe('hostile reporter', () => {
  it('sums the figures, counts lost messages, and marks a failed category and the ones that never ran', () => {
    const out = printed((reporter) => {
      reporter.onTestCaseResult(testCase('approval races', 'passed'));
      reporter.onTestCaseResult(testCase('approval races', 'passed', { messagesLost: 2 }));
      reporter.onTestCaseResult(testCase('OAuth misuse', 'failed', { refused: 2 }));
      reporter.onTestCaseResult(testCase(null, 'failed'));
    });
    expect(out).toContain('hostile: 9 tried, 8 refused with their code');
    // Two failed: one with figures, one that threw before recording any.
    expect(out.split('\n')[1]).toMatch(/ — 2 tests FAILED$/);
    expect(out).toContain('  approval races: 6 tried, 6 refused with their code');
    expect(out).toContain('2 messages lost');
    expect(out).toMatch(/ {2}OAuth misuse: 3 tried, 2 refused .* — FAILED/);
    for (const category of HOSTILE_CATEGORIES.filter(
      (name) => name !== 'approval races' && name !== 'OAuth misuse',
    ))
      expect(out).toContain(`  ${category}: NOT RUN`);
  });

  it('prints nothing for a run with no hostile file', () => {
    expect(printed(() => {})).toBe('');
  });
});
