import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../http/env.js';

/** The console API under `/ops/api/hal` (placeholder: the core domain replaces it). */
export function createHalRoutes(_deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
