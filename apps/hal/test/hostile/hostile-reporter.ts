import type { Reporter, TestCase } from 'vitest/node';

interface Totals {
  tried: number;
  refused: number;
  secretsLeaked: number;
  badExecutions: number;
  blockedConnections: number;
  scriptsRun: number;
  kills: number;
  halfDone: number;
  messagesLost: number;
}

/**
 * The categories of issue #22 "The suite" (and the extras this suite added), as the tests name them. A category
 * that recorded no figure in a run that ran the suite is printed `NOT RUN`, so a skipped browser test or a
 * test that failed before recording cannot quietly drop its line.
 */
export const HOSTILE_CATEGORIES = [
  'sessions, CSRF and Host',
  're-auth on sensitive routes',
  'login limits under concurrency',
  'OAuth misuse',
  'approval races',
  'prompt injection',
  'tool-argument fuzzing',
  'MCP framing',
  'body size, type and shape',
  'XSS corpora in Chromium, with CSP',
  'XSS corpora in Chromium, without CSP',
  'secrets canaries',
  'secrets through settings tools',
  'SSRF spellings',
  'SSRF at connect time',
  'terminal allow-list',
  'kill -9 at marked points',
  'security headers',
  'foreign error text',
  'anonymous health and reads',
] as const;

function emptyTotals(): Totals {
  return {
    tried: 0,
    refused: 0,
    secretsLeaked: 0,
    badExecutions: 0,
    blockedConnections: 0,
    scriptsRun: 0,
    kills: 0,
    halfDone: 0,
    messagesLost: 0,
  };
}

/**
 * Prints the hostile suite's figures at the end of the run: one line in total and one per category, e.g.
 * `hostile: 212 tried, 212 refused with their code, 0 secrets leaked, 0 unapproved or duplicate executions,
 * 0 connections to blocked targets, 0 scripts run, 0 messages lost, 0 half-done after 4 kill -9`. A category
 * with a failed test is marked `FAILED`, one that recorded nothing `NOT RUN`.
 */
export default class HostileReporter implements Reporter {
  private readonly categories = new Map<string, Totals>();
  private readonly failed = new Set<string>();
  private hostileTests = 0;
  /** Failed hostile tests, with figures or without (one that threw before recording has no category). */
  private failedTests = 0;

  onTestCaseResult(testCase: TestCase): void {
    const hostileFile = testCase.module.moduleId.includes('/test/hostile/');
    if (hostileFile) this.hostileTests += 1;
    if (hostileFile && testCase.result().state === 'failed') this.failedTests += 1;
    const figures = testCase.meta().hostile;
    if (!figures) return;
    if (testCase.result().state === 'failed') this.failed.add(figures.category);
    const totals = this.categories.get(figures.category) ?? emptyTotals();
    for (const key of Object.keys(totals) as Array<keyof Totals>) totals[key] += figures[key];
    this.categories.set(figures.category, totals);
  }

  onTestRunEnd(): void {
    // `pnpm test` runs this reporter over every apps/hal file: a run that ran no hostile case prints nothing.
    if (this.categories.size === 0 && this.hostileTests === 0) return;
    const all = emptyTotals();
    const lines: string[] = [];
    const names = new Set<string>([...HOSTILE_CATEGORIES, ...this.categories.keys()]);
    for (const category of [...names].sort((a, b) => a.localeCompare(b))) {
      const totals = this.categories.get(category);
      if (!totals) {
        lines.push(`  ${category}: NOT RUN`);
        continue;
      }
      for (const key of Object.keys(all) as Array<keyof Totals>) all[key] += totals[key];
      lines.push(`  ${category}: ${figureLine(totals)}${this.failed.has(category) ? ' — FAILED' : ''}`);
    }
    const failed = this.failedTests > 0 ? ` — ${this.failedTests} tests FAILED` : '';
    process.stdout.write(`\nhostile: ${figureLine(all)}${failed}\n${lines.join('\n')}\n`);
  }
}

/** One figure line; exported for the reporter's own test. */
export function figureLine(totals: Totals): string {
  return (
    `${totals.tried} tried, ${totals.refused} refused with their code, ${totals.secretsLeaked} secrets leaked, ` +
    `${totals.badExecutions} unapproved or duplicate executions, ${totals.blockedConnections} connections to blocked targets, ` +
    `${totals.scriptsRun} scripts run, ${totals.messagesLost} messages lost, ` +
    `${totals.halfDone} half-done after ${totals.kills} kill -9`
  );
}
