import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HAL_ERROR_CODES } from '@hal-ai/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/foundation.test-support.js';
import {
  INCIDENT_SEVERITIES,
  JOB_CONTROL_ACTIONS,
  JOB_STATES,
  JOB_TYPES,
  ReleasesListArgs,
  SERVER_STATES,
} from '../domain/core/core-schemas.js';
import { SETTINGS_SCHEMA } from '../domain/core/core-settings.js';
import { loadSkill, readSkillFile, SKILL_FILE_NAME, skillCandidates } from './skill.js';
import { ACTION_STATUS_MEANINGS, HAL_TOOL_NAMES } from './tools/index.js';

const srcDir = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const repoSkill = path.resolve(srcDir, '../../../skill', SKILL_FILE_NAME);
const skillText = fs.readFileSync(repoSkill, 'utf8');

/** Every `.ts`/`.tsx` file under `src/`, tests and test helpers left out (they write made-up actions). */
function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (/\.tsx?$/.test(entry.name) && !/\.test(-support)?\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** The string literal members of `field: 'a' | 'b'` unions in a TypeScript source. */
function unionMembers(source: string, field: string): string[] {
  const out = new Set<string>();
  const pattern = new RegExp(`\\b${field}\\??:\\s*((?:'[^']+'\\s*\\|\\s*)+'[^']+')`, 'g');
  for (const match of source.matchAll(pattern)) {
    for (const literal of (match[1] as string).matchAll(/'([^']+)'/g)) out.add(literal[1] as string);
  }
  return [...out];
}

/** Audit action prefixes the code writes: `action: 'server.approve'`, `action: \`job.${…}\``. */
function auditPrefixes(): string[] {
  const out = new Set<string>();
  for (const file of sourceFiles(srcDir)) {
    for (const match of fs.readFileSync(file, 'utf8').matchAll(/\baction:\s*['`]([a-z_]+)\./g)) {
      out.add(match[1] as string);
    }
  }
  return [...out].sort();
}

function missing(values: readonly string[], mention: (value: string) => string | RegExp): string[] {
  return values.filter((value) => {
    const needle = mention(value);
    return typeof needle === 'string' ? !skillText.includes(needle) : !needle.test(skillText);
  });
}

const inBackticks = (value: string) => `\`${value}\``;

describe('skill/hal-skill.md cannot drift from the code', () => {
  const tables = fs.readFileSync(path.join(srcDir, 'platform/db/tables/core.ts'), 'utf8');
  const releaseStates = (
    ReleasesListArgs.entries.state as unknown as { wrapped: { options: readonly string[] } }
  ).wrapped.options;

  const groups: Array<[string, readonly string[]]> = [
    ['server states', SERVER_STATES],
    ['job states', JOB_STATES],
    ['job types', JOB_TYPES],
    ['job controls', JOB_CONTROL_ACTIONS],
    ['release states', releaseStates],
    ['incident severities', INCIDENT_SEVERITIES],
    [
      'stored states (servers, releases, jobs, steps, incidents, mail, emergency)',
      unionMembers(tables, 'state'),
    ],
    ['incident severities (table)', unionMembers(tables, 'severity')],
    ['DR verification', unionMembers(tables, 'verified')],
    ['server kinds', unionMembers(tables, 'kind')],
    ['proposal statuses', Object.keys(ACTION_STATUS_MEANINGS)],
    ['error codes', HAL_ERROR_CODES],
    ['tools', HAL_TOOL_NAMES],
    ['settings keys', Object.keys(SETTINGS_SCHEMA)],
  ];

  it('extracts something from every source (a broken extractor must not pass silently)', () => {
    for (const [name, values] of groups) expect(values.length, name).toBeGreaterThan(0);
    expect(unionMembers(tables, 'state')).toEqual(
      expect.arrayContaining(['pending', 'registered', 'skipped', 'ok', 'degraded', 'ready', 'completed']),
    );
    expect(auditPrefixes()).toEqual(expect.arrayContaining(['server', 'job', 'deploy', 'settings', 'auth']));
  });

  it.each(groups)('explains every value of %s (in backticks)', (_name, values) => {
    expect(missing(values, inBackticks)).toEqual([]);
  });

  it('names every audit action prefix the code writes', () => {
    expect(missing(auditPrefixes(), (prefix) => `\`${prefix}.`)).toEqual([]);
  });

  it('the extractors do fail on a document that misses one', () => {
    const holey = skillText.replaceAll('`server_is_local`', 'server is local');
    expect(HAL_ERROR_CODES.filter((code) => !holey.includes(inBackticks(code)))).toEqual(['server_is_local']);
  });
});

describe('loading the skill document', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('finds the document from the sources and from a bundled dist/', async () => {
    expect(await loadSkill()).toBe(skillText);
    expect(await loadSkill()).toBe(await loadSkill());
    const fromDist = skillCandidates(pathToFileURL(path.resolve(srcDir, '../dist/cli.js')).href, os.tmpdir());
    expect(fromDist).toContain(path.resolve(srcDir, '../dist', SKILL_FILE_NAME));
    expect(fromDist).toContain(repoSkill);
    expect(await readSkillFile(fromDist.filter((file) => !file.includes(`${path.sep}dist${path.sep}`)))).toBe(
      skillText,
    );
  });

  it('fails with internal_error when no candidate exists', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-skill-'));
    await expect(readSkillFile([path.join(empty, SKILL_FILE_NAME)])).rejects.toMatchObject({
      code: 'internal_error',
    });
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('GET /ops/api/ai/skill serves it to a signed-in operator only', async () => {
    t = await createTestApp();
    const anonymous = await t.request('/ops/api/ai/skill');
    expect(anonymous.status).toBe(401);
    const session = await t.login();
    const response = await t.request('/ops/api/ai/skill', { session });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ skill: skillText, format: 'markdown' });
  });
});
