import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../http/env.js';

/** The console pages under `/ops` (placeholder: the core domain replaces it). */
export function createPages(_deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
