import { type Locale, negotiateLocale, translate } from '@hal-ai/ui-panel/i18n';
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../../platform/http/env.js';
import { type PanelRouteDeps, readSavedLocale } from '../panel-routes.js';

/** What the OAuth callback tells its opener, and the page shows. */
export interface OAuthCallbackResult {
  ok: boolean;
  connectionId: string | null;
  status: string | null;
  code: string | null;
  /** The server's own message, carried to the opener as it always was (the panel says it from `code`). */
  message: string;
  /** What the page itself says, in the operator's language. */
  shown: string;
}

/**
 * The popup's language: the operator's saved choice, else what the browser asks for (`Accept-Language`), so the
 * popup never speaks another language than the console that opened it.
 */
export async function callbackLocale(c: Context<AppEnv>, deps: Pick<PanelRouteDeps, 'db'>): Promise<Locale> {
  const operator = c.get('operator');
  const saved = operator ? await readSavedLocale(deps, operator.id).catch(() => null) : null;
  return saved ?? negotiateLocale(c.req.header('accept-language'));
}

/**
 * The OAuth popup's result page: the console's stylesheet and favicon, in one language. The result rides in
 * data attributes that the external report-back script (`callback.js`) posts to the opener; `html` escapes every
 * value, so a provider's error text cannot become markup.
 */
export function renderOAuthCallbackPage(locale: Locale, scriptPath: string, result: OAuthCallbackResult) {
  const t = (key: Parameters<typeof translate>[1]) => translate(locale, key);
  return html`<!doctype html>
<html lang="${locale}">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${t('oauth_page_title')} — HAL</title>
    <link rel="icon" type="image/svg+xml" href="/ops/assets/favicon.svg" />
    <link rel="stylesheet" href="/ops/assets/console.css" />
    <script src="${scriptPath}" defer></script>
  </head>
  <body class="login-page">
    <main class="login card" id="hal-oauth-result" data-ok="${String(result.ok)}" data-connection-id="${result.connectionId ?? ''}" data-status="${result.status ?? ''}" data-code="${result.code ?? ''}" data-message="${result.message}">
      <h1 class="login-brand"><img src="/ops/assets/favicon.svg" alt="" width="40" height="40" /> ${result.ok ? t('oauth_page_done') : t('oauth_page_failed')}</h1>
      <p class="${result.ok ? 'alert alert-ok' : 'alert alert-error'}" role="${result.ok ? 'status' : 'alert'}">${result.shown}</p>
      <p>${t('oauth_page_close')}</p>
    </main>
  </body>
</html>`;
}
