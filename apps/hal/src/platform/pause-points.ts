import fs from 'node:fs';
import path from 'node:path';

/**
 * The marked points where a test may hold HAL still to kill it (`kill -9` at marked points, issue #22): each sits
 * where a crash must leave nothing half-done.
 * - `dr-snapshot-written`: a DR snapshot's copy is written under its temporary name, not yet checked or renamed.
 * - `job-step-running`: a job and its current step are recorded `running`, the step has not started its work.
 */
export type PausePoint = 'dr-snapshot-written' | 'job-step-running';

/** Where HAL may be held at a {@link PausePoint}. */
export interface PausePoints {
  /** Resolves at once, unless a test asked HAL to wait at `point`. */
  reach(point: PausePoint): Promise<void>;
}

/** No pause anywhere: what HAL runs with unless `HAL_TEST_PAUSE_DIR` is set. */
export const noPausePoints: PausePoints = { reach: async () => {} };

/**
 * Pause points driven by files in `dir` (`HAL_TEST_PAUSE_DIR`, for tests only): when `<dir>/<point>.hold` exists,
 * the first process to reach `point` writes `<dir>/<point>.reached` (its pid) and waits until `<dir>/<point>.release`
 * appears. The test waits for `.reached` before it acts, so nothing depends on timing. Without `dir` there is no
 * pause at all.
 *
 * @example
 * const pauses = createPausePoints(env.HAL_TEST_PAUSE_DIR);
 * await pauses.reach('dr-snapshot-written');
 */
export function createPausePoints(dir: string | undefined, pollMs = 20): PausePoints {
  if (dir === undefined || dir === '') return noPausePoints;
  return {
    async reach(point) {
      const file = (suffix: string) => path.join(dir, `${point}.${suffix}`);
      if (!fs.existsSync(file('hold'))) return;
      // One holder per point: the first to reach it takes the hold away.
      try {
        fs.renameSync(file('hold'), file('held'));
      } catch {
        return;
      }
      fs.writeFileSync(file('reached'), String(process.pid));
      while (!fs.existsSync(file('release'))) await new Promise((resolve) => setTimeout(resolve, pollMs));
    },
  };
}
