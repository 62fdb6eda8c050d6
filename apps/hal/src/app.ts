import { HalError } from '@hal-ai/spec';
import { Hono, type MiddlewareHandler } from 'hono';
import { createAgentRoutes } from './agents/agent-routes.js';
import { createConnectionRoutes, createOAuthCallbackRoutes } from './ai/connections/index.js';
import { createPanelRoutes } from './ai/panel-routes.js';
import { createRoomRoutes } from './ai/rooms/index.js';
import { createShellRoutes } from './ai/shell/index.js';
import { createSkillRoutes } from './ai/skill-routes.js';
import type { AppDeps } from './deps.js';
import { defaultBodyLimit } from './http/body-limit.js';
import { csrfProtection } from './http/csrf.js';
import type { AppEnv } from './http/env.js';
import { createErrorHandler, errorResponse } from './http/http-errors.js';
import { requireRecent } from './http/require-recent.js';
import { securityHeaders } from './http/security-headers.js';
import { sessionMiddleware } from './http/session.js';
import { createMcpConfigRoutes } from './mcp/mcp-config-routes.js';
import { createPages } from './pages/index.js';
import { createAuthRoutes } from './routes/auth.js';
import { createHalRoutes } from './routes/hal.js';
import { createHealthRoutes } from './routes/health.js';

/** Paths under `/ops` that need no session: the login form and its POST. */
const PUBLIC_OPS_PATHS = new Set(['/ops/login']);

function exceptPublic(middleware: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => (PUBLIC_OPS_PATHS.has(c.req.path) ? next() : middleware(c, next));
}

/**
 * Builds the HAL host as a Hono app; it never listens (`startServer` does). Everything under
 * `/ops` except the login form goes through the session and CSRF middleware first, so
 * sub-apps mounted there (`/ops/api/hal`, `/ops/api/ai`, pages) inherit both and only add
 * `requireRecent(deps)` and `deps.threeStep.check(...)` themselves. `/agent/api` has its own
 * bearer auth and sits outside.
 *
 * @example
 * const app = createApp(deps);
 * const response = await app.request('/api/health');
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(deps.logger));
  app.notFound((c) => errorResponse(c, new HalError('not_found', 'Not found')));

  app.use('*', securityHeaders());
  app.use('*', defaultBodyLimit(deps.config.bodyLimitBytes, deps.config.uploadLimitBytes));

  app.route('/', createHealthRoutes(deps));
  app.route('/agent/api', createAgentRoutes(deps));

  app.use('/ops', exceptPublic(sessionMiddleware(deps)));
  app.use('/ops/*', exceptPublic(sessionMiddleware(deps)));
  app.use('/ops', exceptPublic(csrfProtection(deps)));
  app.use('/ops/*', exceptPublic(csrfProtection(deps)));

  app.route('/', createAuthRoutes(deps));
  app.route('/ops/api/hal', createHalRoutes(deps));
  app.route('/ops/api/ai', createRoomRoutes(deps));
  app.route('/ops/api/ai', createSkillRoutes(deps));
  app.route('/ops/api/ai', createConnectionRoutes(deps));
  app.route('/ops/api/ai', createMcpConfigRoutes(deps));
  if (deps.shells) {
    app.route('/ops/api/ai', createShellRoutes({ shells: deps.shells, requireRecent: requireRecent(deps) }));
  }
  app.route('/ops/ai/oauth', createOAuthCallbackRoutes(deps));
  app.route('/ops', createPanelRoutes(deps));
  app.route('/ops', createPages(deps));
  return app;
}
