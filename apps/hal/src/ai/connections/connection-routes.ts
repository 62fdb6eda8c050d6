import { HAL_ERROR_STATUS } from '@hal-ai/spec';
import type { ToolRegistry } from '@hal-ai/tools';
import { createTranslator, errorText, type MessageKey } from '@hal-ai/ui-panel/i18n';
import { type Context, Hono } from 'hono';
import { parseInput } from '../../domain/core/core-support.js';
import type { AppEnv } from '../../platform/http/env.js';
import { toHalError } from '../../platform/http/http-errors.js';
import { readJsonInput, readJsonObject } from '../../platform/http/json-body.js';
import { type PublicOriginConfig, publicOrigin } from '../../platform/http/public-origin.js';
import { type RequireRecentDeps, requireRecent } from '../../platform/http/require-recent.js';
import { allowOpenerFromCallback } from '../../platform/http/security-headers.js';
import type { Logger } from '../../platform/logger.js';
import type { PanelRouteDeps } from '../panel-routes.js';
import { HAL_TOOL_NAMES, HAL_TOOL_TIERS } from '../tools/index.js';
import { createConnectionSchema, replaceSecretSchema, updateConnectionSchema } from './connection-schemas.js';
import type { ConnectionManager } from './connection-service.js';
import { widensTools } from './connection-tool-widening.js';
import { callbackLocale, type OAuthCallbackResult, renderOAuthCallbackPage } from './oauth-callback-page.js';

type Ctx = Context<AppEnv>;

/** What the connection routes use: the connection service, and the clock re-authentication is measured by. */
export interface ConnectionRouteDeps extends RequireRecentDeps {
  connections: ConnectionManager;
  config: PublicOriginConfig;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** HAL's tool registry: whether a preset change widens what a connection may call. */
  tools: Pick<ToolRegistry<never>, 'select'>;
}

/** Where the OAuth callback page lives (relative to the HAL origin). */
export const OAUTH_CALLBACK_PATH = '/ops/ai/oauth/callback';
/** The external script of the callback page (the CSP forbids inline script). */
export const OAUTH_CALLBACK_SCRIPT_PATH = '/ops/ai/oauth/callback.js';

/** The `postMessage` type the callback page sends to its opener. */
export const OAUTH_MESSAGE_TYPE = 'hal-oauth';

/** The tools a `custom` preset can enable, with their tiers, for the connections screen's picker. */
const TOOL_CHOICES = HAL_TOOL_NAMES.map((name) => ({ name, risk: HAL_TOOL_TIERS[name] }));

/** The callback URL, on HAL's public origin (`HAL_PUBLIC_URL`, else the listen address; never the `Host` header). */
function callbackUrlOf(c: Ctx, deps: ConnectionRouteDeps): string {
  return `${publicOrigin(c, deps.config)}${OAUTH_CALLBACK_PATH}`;
}

function connectionsOf(deps: ConnectionRouteDeps): ConnectionManager {
  return deps.connections;
}

/** `requireRecent` inside a handler, for requests that are key changes only with certain fields. */
async function assertRecent(c: Ctx, deps: ConnectionRouteDeps): Promise<void> {
  await requireRecent(deps)(c, async () => {});
}

function hasSecretField(body: Record<string, unknown>): boolean {
  const oauth = body.oauth as Record<string, unknown> | undefined;
  return body.apiKey !== undefined || (typeof oauth === 'object' && oauth?.clientSecret !== undefined);
}

/**
 * The connection routes under `/ops/api/ai` (SPEC §13): list (with the tools a `custom` preset can pick)
 * /create (an OAuth one answers `next: {action: "oauth"}`: log in next)/change/delete, check, replace a
 * secret, OAuth start, and the discovered CLIs. Authentication changes pass `requireRecent` (SPEC §2): creating a
 * connection (every auth method, the local CLI included: it lets a model act with the operator's tools), a key or
 * client secret in a change, replacing one, OAuth login, delete, and a tool preset change that enables a tool
 * the connection could not call before.
 *
 * @example
 * app.route('/ops/api/ai', createConnectionRoutes(deps));
 */
export function createConnectionRoutes(deps: ConnectionRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/connections', async (c) => {
    const connections = connectionsOf(deps);
    return c.json({
      connections: await connections.list(),
      providers: connections.providers(),
      callbackUrl: callbackUrlOf(c, deps),
      tools: TOOL_CHOICES,
    });
  });

  routes.post('/connections', requireRecent(deps), async (c) => {
    const body = await readJsonObject(c);
    const input = parseInput(createConnectionSchema, body);
    const connection = await connectionsOf(deps).create(input, c.get('operator'));
    // An OAuth connection is finished by its login: the answer says so, and the screen opens the popup.
    const next = connection.auth === 'oauth' && connection.status === 'reauth_required';
    return c.json({ connection, ...(next ? { next: { action: 'oauth' as const } } : {}) }, 201);
  });

  routes.patch('/connections/:id', async (c) => {
    const body = await readJsonObject(c);
    const input = parseInput(updateConnectionSchema, body);
    if (hasSecretField(body)) await assertRecent(c, deps);
    else if (input.tools !== undefined) {
      const current = await connectionsOf(deps).get(c.req.param('id'));
      if (current && widensTools(deps.tools, current.tools, input.tools)) await assertRecent(c, deps);
    }
    const connection = await connectionsOf(deps).update(c.req.param('id'), input, c.get('operator'));
    return c.json({ connection });
  });

  routes.delete('/connections/:id', requireRecent(deps), async (c) => {
    await connectionsOf(deps).remove(c.req.param('id'), c.get('operator'));
    return c.body(null, 204);
  });

  routes.post('/connections/:id/test', async (c) => {
    const result = await connectionsOf(deps).check(c.req.param('id'), c.get('operator'));
    return c.json(result);
  });

  routes.post('/connections/:id/secret', requireRecent(deps), async (c) => {
    const input = await readJsonInput(c, replaceSecretSchema);
    const connection = await connectionsOf(deps).replaceSecret(c.req.param('id'), input, c.get('operator'));
    return c.json({ connection });
  });

  routes.post('/connections/:id/oauth/start', requireRecent(deps), async (c) => {
    const result = await connectionsOf(deps).startOAuth(
      c.req.param('id'),
      c.get('operator'),
      callbackUrlOf(c, deps),
    );
    return c.json(result);
  });

  routes.get('/cli', async (c) => c.json({ clis: await connectionsOf(deps).listClis() }));

  return routes;
}

/** Reports the result to the window that opened the popup (same origin only) and closes it. */
const CALLBACK_SCRIPT = `(() => {
  const result = document.getElementById('hal-oauth-result');
  if (!result) return;
  const data = result.dataset;
  const message = {
    type: '${OAUTH_MESSAGE_TYPE}',
    ok: data.ok === 'true',
    connectionId: data.connectionId || null,
    status: data.status || null,
    code: data.code || null,
    message: data.message || '',
  };
  if (window.opener && !window.opener.closed) {
    window.opener.postMessage(message, window.location.origin);
    window.close();
  }
})();
`;

/**
 * The OAuth callback page under `/ops/ai/oauth` (`/callback?code&state` and its script). The page
 * carries the result in data attributes; an external script posts it to the opener and closes the
 * popup, because the CSP allows no inline script.
 *
 * @example
 * app.route('/ops/ai/oauth', createOAuthCallbackRoutes(deps));
 */
export function createOAuthCallbackRoutes(
  deps: ConnectionRouteDeps & Pick<PanelRouteDeps, 'db'>,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/callback.js', (c) => {
    c.header('content-type', 'text/javascript; charset=utf-8');
    c.header('cache-control', 'no-cache');
    return c.body(CALLBACK_SCRIPT);
  });

  routes.get('/callback', async (c) => {
    c.header('cache-control', 'no-store');
    // The page posts its result to the panel through window.opener, which any stricter opener policy would cut.
    allowOpenerFromCallback(c);
    const query = {
      code: c.req.query('code'),
      state: c.req.query('state'),
      error: c.req.query('error'),
    };
    // The operator's language (the popup is part of their console); the data attributes stay as they were.
    const locale = await callbackLocale(c, deps);
    const t = createTranslator(locale);
    const page = (result: OAuthCallbackResult) =>
      renderOAuthCallbackPage(locale, OAUTH_CALLBACK_SCRIPT_PATH, result);
    try {
      const connection = await connectionsOf(deps).completeOAuth(query, c.get('operator'));
      const failure = connection.lastError;
      return c.html(
        page({
          ok: true,
          connectionId: connection.id,
          status: connection.status,
          code: failure?.code ?? null,
          message:
            connection.status === 'active'
              ? `${connection.name} is connected.`
              : `${connection.name}: ${failure?.message ?? connection.status}`,
          shown:
            connection.status === 'active'
              ? t('oauth_page_connected', { name: connection.name })
              : t('oauth_page_status', {
                  name: connection.name,
                  status: failure
                    ? errorText(t, failure.code, failure.message).text
                    : t(`status_${connection.status}` as MessageKey),
                }),
        }),
      );
    } catch (error) {
      const halError = toHalError(error);
      if (halError.status >= 500 && HAL_ERROR_STATUS[halError.code] !== null) {
        deps.logger.error({ err: error }, 'oauth callback failed');
      }
      const status = HAL_ERROR_STATUS[halError.code] ?? 502;
      const message = halError.code === 'internal_error' ? 'Internal error' : halError.message;
      return c.html(
        page({
          ok: false,
          connectionId: null,
          status: null,
          code: halError.code,
          message,
          shown: errorText(t, halError.code, message).text,
        }),
        status as 400,
      );
    }
  });

  return routes;
}
