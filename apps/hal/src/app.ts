import { HalError } from '@hal-ai/spec';
import { Hono, type MiddlewareHandler } from 'hono';
import {
  type ConnectionRouteDeps,
  createConnectionRoutes,
  createOAuthCallbackRoutes,
} from './ai/connections/connection-routes.js';
import { createDebateRoutes } from './ai/debates/debate-routes.js';
import { createMcpConfigRoutes } from './ai/mcp/mcp-config-routes.js';
import { createPanelRoutes, type PanelRouteDeps } from './ai/panel-routes.js';
import { createRoomRoutes, type RoomRouteDeps } from './ai/rooms/room-routes.js';
import { createShellRoutes } from './ai/shell/index.js';
import type { ShellService } from './ai/shell/shell-sessions.js';
import { createSkillRoutes } from './ai/skill-routes.js';
import { type AgentRoutesDeps, createAgentRoutes } from './domain/agents/agent-routes.js';
import { type AuthRouteDeps, createAuthRoutes } from './domain/console-api/auth.js';
import { createHalRoutes, type HalRouteDeps } from './domain/console-api/hal.js';
import { createHealthRoutes, type HealthDeps } from './domain/console-api/health.js';
import { createPages } from './domain/pages/index.js';
import type { PageDeps } from './domain/pages/pages-actions.js';
import type { HalConfig } from './platform/config.js';
import { accessLog } from './platform/http/access-log.js';
import { defaultBodyLimit } from './platform/http/body-limit.js';
import { bodyTypePolicy } from './platform/http/body-type.js';
import { csrfProtection } from './platform/http/csrf.js';
import type { AppEnv } from './platform/http/env.js';
import { createErrorHandler, errorResponse } from './platform/http/http-errors.js';
import { hostGuard } from './platform/http/public-origin.js';
import { requireRecent } from './platform/http/require-recent.js';
import { type SecurityHeadersSettings, securityHeaders } from './platform/http/security-headers.js';
import { sessionMiddleware } from './platform/http/session.js';
import type { Logger } from './platform/logger.js';

/**
 * What the whole host uses: the union of what its sub-apps declare. `HalRuntime` satisfies it; a test
 * may build a smaller app by calling one sub-app's factory with that sub-app's own `…Deps`.
 */
export type HalAppDeps = HealthDeps &
  AgentRoutesDeps &
  AuthRouteDeps &
  HalRouteDeps &
  RoomRouteDeps &
  ConnectionRouteDeps &
  PanelRouteDeps &
  PageDeps & {
    config: HalConfig;
    logger: Logger;
    shells: ShellService;
  };

/**
 * Paths under `/ops` that need no session: the login form and its POST, and what the login page shows
 * (the console's stylesheet and icon, which hold nothing about anyone).
 */
const PUBLIC_OPS_PATHS = new Set(['/ops/login', '/ops/assets/console.css', '/ops/assets/favicon.svg']);

function exceptPublic(middleware: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => (PUBLIC_OPS_PATHS.has(c.req.path) ? next() : middleware(c, next));
}

/** Settings of {@link createApp} that no configuration reaches: test-only switches of the host. */
export interface AppSettings {
  /** The security headers (tests of the sanitiser alone turn the Content-Security-Policy off). */
  securityHeaders?: SecurityHeadersSettings;
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
export function createApp(deps: HalAppDeps, settings: AppSettings = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(deps.logger));
  app.notFound((c) => errorResponse(c, new HalError('not_found', 'Not found')));

  app.use('*', accessLog(deps));
  app.use('*', securityHeaders({ trustProxy: deps.config.trustProxy, ...settings.securityHeaders }));
  app.use('*', hostGuard(deps.config));
  app.use('*', defaultBodyLimit(deps.config.bodyLimitBytes, deps.config.uploadLimitBytes));

  app.route('/', createHealthRoutes(deps));
  app.use('/agent/api/*', bodyTypePolicy());
  app.route('/agent/api', createAgentRoutes(deps));

  app.use('/ops', exceptPublic(sessionMiddleware(deps)));
  app.use('/ops/*', exceptPublic(sessionMiddleware(deps)));
  app.use('/ops', exceptPublic(csrfProtection(deps)));
  app.use('/ops/*', exceptPublic(csrfProtection(deps)));
  // After the session and CSRF checks (a request that is refused anyway says so first), before any route reads.
  app.use('/ops', bodyTypePolicy());
  app.use('/ops/*', bodyTypePolicy());

  app.route('/', createAuthRoutes(deps));
  app.route('/ops/api/hal', createHalRoutes(deps));
  app.route('/ops/api/ai', createRoomRoutes(deps));
  app.route('/ops/api/ai', createDebateRoutes(deps));
  app.route('/ops/api/ai', createSkillRoutes());
  app.route('/ops/api/ai', createConnectionRoutes(deps));
  app.route('/ops/api/ai', createMcpConfigRoutes(deps));
  app.route('/ops/api/ai', createShellRoutes({ shells: deps.shells, requireRecent: requireRecent(deps) }));
  app.route('/ops/ai/oauth', createOAuthCallbackRoutes(deps));
  app.route('/ops', createPanelRoutes(deps));
  app.route('/ops', createPages(deps));
  return app;
}
