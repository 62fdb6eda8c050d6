import { HalError } from '@hal-ai/spec';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Kysely } from 'kysely';
import { createSessionStore, type SessionStore } from '../../domain/auth/auth-sessions.js';
import type { Clock } from '../../domain/core/clock.js';
import type { HalConfig } from '../config.js';
import type { Database } from '../db/schema.js';
import { isHttps } from './client-address.js';
import type { AppEnv } from './env.js';

/** What the session middleware, its store and its cookie read. */
export interface SessionDeps {
  db: Kysely<Database>;
  clock: Clock;
  config: Pick<HalConfig, 'reauthWindowS' | 'trustProxy'> &
    Partial<Pick<HalConfig, 'databaseCompiledQueries'>>;
  /** Randomness for session and CSRF tokens. */
  random: (bytes: number) => Buffer;
}

/** The session cookie's name. */
export const SESSION_COOKIE = 'hal_session';

/** The session store for these deps (stateless: all state is in the database). */
export function sessionStoreFor(deps: SessionDeps): SessionStore {
  return createSessionStore({
    db: deps.db,
    clock: deps.clock,
    random: deps.random,
    reauthWindowS: deps.config.reauthWindowS,
    compiledQueries: deps.config.databaseCompiledQueries ?? true,
  });
}

/** Sets `hal_session` (HttpOnly, SameSite=Lax, Path=/, Secure over https) until the absolute expiry. */
export function setSessionCookie(
  c: Context,
  deps: Pick<SessionDeps, 'clock' | 'config'>,
  token: string,
  expiresAt: number,
): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: isHttps(c, deps.config.trustProxy),
    maxAge: Math.max(0, Math.floor((expiresAt - deps.clock.now()) / 1000)),
  });
}

/** Tells the browser to drop `hal_session`. */
export function clearSessionCookie(c: Context, deps: Pick<SessionDeps, 'config'>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c, deps.config.trustProxy) });
}

/** The raw session token from the request's cookie, if any. */
export function readSessionToken(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

function isApiPath(path: string): boolean {
  return path === '/ops/api' || path.startsWith('/ops/api/');
}

/**
 * Requires a live session. Sets `c.var.operator`, `sessionId`, `csrfToken` and `recentAuthUntil`.
 * Without one: `401 unauthenticated` on `/ops/api/*` (and any non-GET), a redirect to
 * `/ops/login` for pages.
 */
export function sessionMiddleware(deps: SessionDeps): MiddlewareHandler<AppEnv> {
  const store = sessionStoreFor(deps);
  return async function sessionMiddleware(c, next) {
    const token = readSessionToken(c);
    const session = token === undefined ? null : await store.resolve(token);
    if (session === null) {
      if (token !== undefined) clearSessionCookie(c, deps);
      const method = c.req.method;
      if (!isApiPath(c.req.path) && (method === 'GET' || method === 'HEAD')) {
        const target = c.req.path + (new URL(c.req.url).search || '');
        return c.redirect(`/ops/login?next=${encodeURIComponent(target)}`, 302);
      }
      throw new HalError('unauthenticated', 'Sign in first');
    }
    c.set('operator', session.operator);
    c.set('sessionId', session.id);
    c.set('csrfToken', session.csrfToken);
    c.set('recentAuthUntil', session.recentAuthUntil);
    await next();
  };
}
