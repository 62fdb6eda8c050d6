import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HalError } from '@hal-ai/spec';

/** The skill document's file name (in `skill/` of the repository, and copied next to the built `dist/`). */
export const SKILL_FILE_NAME = 'hal-skill.md';

/**
 * Where the skill document may be, in order: next to this module once bundled (`dist/hal-skill.md`,
 * copied by the tsup build), the repository's `skill/` seen from the sources (`src/ai/`) or from
 * `dist/`, then relative to the working directory (repository root or `apps/hal`).
 */
export function skillCandidates(moduleUrl: string = import.meta.url, cwd: string = process.cwd()): string[] {
  const here = path.dirname(fileURLToPath(moduleUrl));
  return [
    path.join(here, SKILL_FILE_NAME),
    path.resolve(here, '../../../../skill', SKILL_FILE_NAME),
    path.resolve(here, '../../../skill', SKILL_FILE_NAME),
    path.resolve(cwd, 'skill', SKILL_FILE_NAME),
    path.resolve(cwd, 'dist', SKILL_FILE_NAME),
    path.resolve(cwd, '../../skill', SKILL_FILE_NAME),
  ];
}

/** Reads the first candidate that exists. @throws HalError `internal_error` when none does. */
export async function readSkillFile(candidates: string[] = skillCandidates()): Promise<string> {
  for (const file of candidates) {
    try {
      return await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new HalError('internal_error', `The skill document ${SKILL_FILE_NAME} was not found`);
}

let cached: Promise<string> | undefined;

/**
 * The skill document every model reads first (SPEC §4), read once per process. A failed read is not
 * cached, so a later call tries again.
 *
 * @example
 * const systemPrompt = `${await loadSkill()}\n\n${identity}`;
 */
export function loadSkill(): Promise<string> {
  if (cached === undefined) {
    const reading = readSkillFile();
    cached = reading;
    reading.catch(() => {
      if (cached === reading) cached = undefined;
    });
  }
  return cached;
}
