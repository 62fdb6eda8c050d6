import { HalError } from '@hal-ai/spec';
import type { MiddlewareHandler } from 'hono';
import type { Clock } from '../../domain/core/clock.js';
import type { AppEnv } from './env.js';

/** What {@link requireRecent} reads: the clock the re-authentication window is measured by. */
export interface RequireRecentDeps {
  clock: Clock;
}

/**
 * Guards a sensitive route: passes only when the session entered the password (login or
 * `POST /ops/api/reauth`) within `config.reauthWindowS`, by `deps.clock`; else
 * `401 reauth_required`, which makes the UI open its re-authentication dialog.
 * Mount after the session middleware (everything under `/ops/api` is).
 *
 * @example
 * routes.post('/servers', requireRecent(deps), handler);
 */
export function requireRecent(deps: RequireRecentDeps): MiddlewareHandler<AppEnv> {
  return async function requireRecent(c, next) {
    const until = c.get('recentAuthUntil');
    if (typeof until !== 'number' || deps.clock.now() >= until) {
      throw new HalError('reauth_required', 'Enter your password again to continue');
    }
    await next();
  };
}
