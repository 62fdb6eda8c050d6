import { Hono } from 'hono';
import type { AppEnv } from '../platform/http/env.js';
import { loadSkill } from './skill.js';

/** What {@link createSkillRoutes} needs: only a skill reader, which tests may replace. */
export interface SkillRouteSettings {
  /** Reads the skill text (default {@link loadSkill}). */
  skill?: () => Promise<string>;
}

/**
 * `GET /ops/api/ai/skill` → `{skill, format: 'markdown'}`: the skill document every model reads (SPEC §13).
 * Mounted under `/ops/api/ai`, so the session middleware already guards it.
 */
export function createSkillRoutes(settings: SkillRouteSettings = {}): Hono<AppEnv> {
  const read = settings.skill ?? loadSkill;
  const routes = new Hono<AppEnv>();
  routes.get('/skill', async (c) => c.json({ skill: await read(), format: 'markdown' as const }));
  return routes;
}
