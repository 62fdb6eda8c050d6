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
}

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
  };
}

/**
 * Prints the hostile suite's figures at the end of the run: one line in total and one per category, e.g.
 * `hostile: 212 tried, 212 refused with their code, 0 secrets leaked, 0 unapproved or duplicate executions,
 * 0 connections to blocked targets, 0 scripts run, 0 half-done after 4 kill -9`.
 */
export default class HostileReporter implements Reporter {
  private readonly categories = new Map<string, Totals>();

  onTestCaseResult(testCase: TestCase): void {
    const figures = testCase.meta().hostile;
    if (!figures) return;
    const totals = this.categories.get(figures.category) ?? emptyTotals();
    totals.tried += figures.tried;
    totals.refused += figures.refused;
    totals.secretsLeaked += figures.secretsLeaked;
    totals.badExecutions += figures.badExecutions;
    totals.blockedConnections += figures.blockedConnections;
    totals.scriptsRun += figures.scriptsRun;
    totals.kills += figures.kills;
    totals.halfDone += figures.halfDone;
    this.categories.set(figures.category, totals);
  }

  onTestRunEnd(): void {
    // `pnpm test` runs this reporter over every apps/hal file: a run that ran no hostile case prints nothing.
    if (this.categories.size === 0) return;
    const all = emptyTotals();
    const lines: string[] = [];
    for (const [category, totals] of [...this.categories].sort(([a], [b]) => a.localeCompare(b))) {
      for (const key of Object.keys(all) as Array<keyof Totals>) all[key] += totals[key];
      lines.push(`  ${category}: ${describe(totals)}`);
    }
    process.stdout.write(`\nhostile: ${describe(all)}\n${lines.join('\n')}\n`);
  }
}

function describe(totals: Totals): string {
  return (
    `${totals.tried} tried, ${totals.refused} refused with their code, ${totals.secretsLeaked} secrets leaked, ` +
    `${totals.badExecutions} unapproved or duplicate executions, ${totals.blockedConnections} connections to blocked targets, ` +
    `${totals.scriptsRun} scripts run, ${totals.halfDone} half-done after ${totals.kills} kill -9`
  );
}
