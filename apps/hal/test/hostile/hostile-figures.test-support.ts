import type { TestContext } from 'vitest';

/**
 * The figures one hostile test adds to the suite's closing line (see `hostile-reporter.ts`). "Bad" figures must
 * stay 0: a secret found where it must not be, an action executed without approval or twice, a socket opened to a
 * blocked address.
 */
export interface HostileFigures {
  /** Hostile inputs sent. */
  tried: number;
  /** Of those, refused with the stable code the test expected. */
  refused: number;
  secretsLeaked?: number;
  badExecutions?: number;
  blockedConnections?: number;
  /** Scripts a hostile payload got to run in a real browser (a marker call, a dialog, a live handler or link). */
  scriptsRun?: number;
  /** `kill -9`s of a real `hal serve` at a marked point, each followed by a restart. */
  kills?: number;
  /** Records a kill left half-done after the restart (a turn still running, a partial snapshot file, …). */
  halfDone?: number;
  /**
   * Messages an operator or a model sent that are not in the room afterwards: refusing or masking hostile input
   * must not drop what came with it (SPEC §12 "loses nothing"), nor may a `kill -9` take a stored message away.
   */
  messagesLost?: number;
}

declare module 'vitest' {
  interface TaskMeta {
    hostile?: Required<HostileFigures> & { category: string };
  }
}

/** Records a test's figures under its category, for the reporter. */
export function recordFigures(context: TestContext, category: string, figures: HostileFigures): void {
  context.task.meta.hostile = {
    category,
    tried: figures.tried,
    refused: figures.refused,
    secretsLeaked: figures.secretsLeaked ?? 0,
    badExecutions: figures.badExecutions ?? 0,
    blockedConnections: figures.blockedConnections ?? 0,
    scriptsRun: figures.scriptsRun ?? 0,
    kills: figures.kills ?? 0,
    halfDone: figures.halfDone ?? 0,
    messagesLost: figures.messagesLost ?? 0,
  };
}

/** A tally that counts tries and refusals as a test goes. */
export function createTally() {
  const tally = { tried: 0, refused: 0, misses: [] as string[] };
  return {
    tally,
    /** Counts one try; `ok` when it was refused as expected (else `label` is kept for the failure message). */
    check(ok: boolean, label: string) {
      tally.tried += 1;
      if (ok) tally.refused += 1;
      else tally.misses.push(label);
    },
  };
}
