import { HalError } from '@hal-ai/spec';
import {
  createTranslator,
  errorText,
  issueText,
  type Locale,
  negotiateLocale,
  translate,
  validationIssues,
} from '@hal-ai/ui-panel/i18n';
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import * as v from 'valibot';
import type { HalConfig } from '../../platform/config.js';
import { clientAddress } from '../../platform/http/client-address.js';
import { assertSameOrigin } from '../../platform/http/csrf.js';
import type { AppEnv } from '../../platform/http/env.js';
import { readFormFields } from '../../platform/http/form-body.js';
import { readJsonInput, readJsonObject } from '../../platform/http/json-body.js';
import {
  clearSessionCookie,
  readSessionToken,
  type SessionDeps,
  sessionStoreFor,
  setSessionCookie,
} from '../../platform/http/session.js';
import { parseInput } from '../../platform/input-schema.js';
import type { AuditLog } from '../audit/types.js';
import { authenticateOperator } from '../auth/auth-operators.js';
import { createLoginRateLimiter } from '../auth/auth-rate-limit.js';
import { credentialSchema, reauthenticate } from '../auth/auth-reauthenticate.js';

/** What the sign-in routes use: the session store's services, the audit log and the password cost. */
export interface AuthRouteDeps extends SessionDeps {
  audit: AuditLog;
  config: Pick<HalConfig, 'reauthWindowS' | 'trustProxy' | 'passwordHashing'>;
}

function isFormRequest(c: Context): boolean {
  const type = c.req.header('content-type')?.toLowerCase() ?? '';
  return type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data');
}

/**
 * Only same-site console paths are valid post-login targets (no `//host`, no other prefixes), and only in visible
 * ASCII: a CR/LF would split the `Location` header (it was a 500), anything else non-printable has no business there.
 */
function safeNext(next: unknown): string {
  if (typeof next !== 'string') return '/ops';
  if (!/^\/ops(?:[/?#]|$)/.test(next) || next.startsWith('//') || next.includes('\\')) return '/ops';
  if (/[^\x21-\x7e]/.test(next)) return '/ops';
  return next;
}

/**
 * The sign-in body: JSON, or the login page's urlencoded form — nothing else is read. Multipart in particular is
 * refused before a byte of it is parsed: the login is open to anyone, and a multipart body may be as large as a
 * release upload.
 */
async function readLoginBody(c: Context): Promise<{ form: boolean; body: Record<string, unknown> }> {
  const type = c.req.header('content-type')?.toLowerCase() ?? '';
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return { form: true, body: (await c.req.parseBody()) as Record<string, unknown> };
  }
  if (!type.startsWith('application/json')) {
    throw new HalError('validation_failed', 'Sign in with a JSON body or the login form', {
      details: { field: 'content-type' },
    });
  }
  return { form: false, body: await readJsonObject(c) };
}

const loginSchema = v.object({ username: credentialSchema, password: credentialSchema });
const reauthSchema = v.object({ password: credentialSchema });

/** What the login page says for a failed attempt: the code's sentence and each field's, all in one language. */
interface LoginFailure {
  code: string;
  text: string;
  issues: string[];
}

/**
 * What the login page says for a failed attempt, in the page's language only: the sign-in codes' own sentences,
 * every other code's sentence from the shared error catalogue (SPEC §12), and for `validation_failed` each
 * field's sentence ("사용자 이름: 1024자 이하여야 합니다"). The server's English never shows: nobody is signed in
 * yet, and the page has nothing to report it to.
 */
function loginFailure(locale: Locale, error: HalError): LoginFailure {
  const t = createTranslator(locale);
  const text =
    error.code === 'invalid_credentials'
      ? t('login_failed')
      : error.code === 'rate_limited'
        ? t('login_rate_limited')
        : errorText(t, error.code, '').text;
  const issues = validationIssues(error.details).map((issue) => issueText(t, issue).text);
  return { code: error.code, text, issues };
}

/** The login page's alert: the sentence, then one line per field that failed. */
function failureBox(failure: LoginFailure) {
  return html`<div class="alert alert-error" role="alert" data-error-code="${failure.code}">
          <p>${failure.text}</p>
          ${
            failure.issues.length > 0
              ? html`<ul class="error-issues">${failure.issues.map((line) => html`<li>${line}</li>`)}</ul>`
              : ''
          }
        </div>`;
}

/**
 * The login page, in the language the browser asks for (`Accept-Language`: nobody is signed in yet, so no
 * preference exists), styled by the console's own stylesheet (served without a session).
 */
function loginPage(options: { locale: Locale; failure?: LoginFailure; next?: string; username?: string }) {
  const t = (key: Parameters<typeof translate>[1]) => translate(options.locale, key);
  return html`<!doctype html>
<html lang="${options.locale}">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${t('login_title')} — HAL</title>
    <link rel="icon" type="image/svg+xml" href="/ops/assets/favicon.svg" />
    <link rel="stylesheet" href="/ops/assets/console.css" />
  </head>
  <body class="login-page">
    <main class="login card" id="content">
      <h1 class="login-brand"><img src="/ops/assets/favicon.svg" alt="" width="40" height="40" /> HAL</h1>
      <form method="post" action="/ops/login" class="stack">
        ${options.failure ? failureBox(options.failure) : ''}
        <input type="hidden" name="next" value="${options.next ?? '/ops'}" />
        <label>${t('login_username')} <input name="username" autocomplete="username" required value="${options.username ?? ''}" /></label>
        <label>${t('login_password')} <input name="password" type="password" autocomplete="current-password" required /></label>
        <button type="submit" class="button primary">${t('login_submit')}</button>
      </form>
    </main>
  </body>
</html>`;
}

/**
 * Sign-in routes: the no-JavaScript login page and `POST /ops/login` (public, Origin-checked),
 * `POST /ops/logout`, `GET /ops/api/session`, `POST /ops/api/reauth` (behind the session and
 * CSRF middleware that `createApp` puts in front of `/ops/*`).
 */
export function createAuthRoutes(deps: AuthRouteDeps): Hono<AppEnv> {
  const store = sessionStoreFor(deps);
  const limiter = createLoginRateLimiter({ db: deps.db, clock: deps.clock });
  const routes = new Hono<AppEnv>();
  const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);

  routes.get('/ops/login', (c) => {
    c.header('Content-Language', negotiateLocale(c.req.header('accept-language')));
    return c.html(
      loginPage({
        locale: negotiateLocale(c.req.header('accept-language')),
        next: safeNext(c.req.query('next')),
      }),
    );
  });

  routes.post('/ops/login', async (c) => {
    // The login page's own form is answered with the page, whatever went wrong that HAL can say (a refused
    // origin, a body that is not acceptable, a bad field, a wrong password, too many attempts); JSON with JSON.
    const page = (c.req.header('content-type') ?? '')
      .toLowerCase()
      .startsWith('application/x-www-form-urlencoded');
    let body: Record<string, unknown> = {};
    try {
      assertSameOrigin(c, deps.config.trustProxy);
      const read = await readLoginBody(c);
      body = read.body;
      const { form } = read;
      const next = safeNext(body.next);
      const { username, password } = parseInput(loginSchema, body);
      const address = clientAddress(c, deps.config.trustProxy);
      const attempt = await limiter.attempt(username, address);
      const operator = await authenticateOperator(deps.db, username, password, {
        passwordParams: deps.config.passwordHashing,
      });
      if (operator === null) {
        const known = await deps.db
          .selectFrom('operators')
          .select('id')
          .where('username', '=', username)
          .executeTakeFirst();
        // The typed username is recorded only when it is a real account: a password typed into
        // the username field must not end up in the audit log.
        await deps.audit.append({
          actor: 'system',
          action: 'auth.login_failed',
          target: known ? `operator:${known.id}` : null,
          details: { address, unknownUsername: known === undefined },
        });
        throw new HalError('invalid_credentials', 'Wrong username or password');
      }
      await attempt.succeeded();
      // Whatever session the browser held before (possibly planted) ends here.
      const previous = readSessionToken(c);
      if (previous !== undefined) {
        const old = await store.resolve(previous);
        if (old !== null) await store.close(old.id);
      }
      const session = await store.open(operator);
      setSessionCookie(c, deps, session.token, session.expiresAt);
      await deps.audit.append({
        actor: `operator:${operator.id}`,
        action: 'auth.login',
        target: `operator:${operator.id}`,
        details: { address },
      });
      if (form) return c.redirect(next, 303);
      return c.json({
        operator,
        csrfToken: session.csrfToken,
        recentAuthUntil: iso(session.recentAuthUntil),
      });
    } catch (error) {
      if (!page || !HalError.isInstance(error)) throw error;
      if (error.code === 'rate_limited' && typeof error.details.retryAfterS === 'number') {
        c.header('Retry-After', String(error.details.retryAfterS));
      }
      const username = typeof body?.username === 'string' ? body.username.slice(0, 64) : '';
      const locale = negotiateLocale(c.req.header('accept-language'));
      return c.html(
        loginPage({ locale, failure: loginFailure(locale, error), next: safeNext(body.next), username }),
        error.status as ContentfulStatusCode,
      );
    }
  });

  routes.post('/ops/logout', async (c) => {
    // The console's sign-out form carries its token as a field: check it before anything ends.
    if (isFormRequest(c)) await readFormFields(c);
    const operator = c.get('operator');
    await store.close(c.get('sessionId'));
    clearSessionCookie(c, deps);
    await deps.audit.append({
      actor: `operator:${operator.id}`,
      action: 'auth.logout',
      target: `operator:${operator.id}`,
    });
    if (isFormRequest(c)) return c.redirect('/ops/login', 303);
    return c.body(null, 204);
  });

  routes.get('/ops/api/session', (c) =>
    c.json({
      operator: c.get('operator'),
      csrfToken: c.get('csrfToken'),
      recentAuthUntil: iso(c.get('recentAuthUntil')),
    }),
  );

  routes.post('/ops/api/reauth', async (c) => {
    const { password } = await readJsonInput(c, reauthSchema);
    const { recentAuthUntil } = await reauthenticate(c, deps, password);
    return c.json({ recentAuthUntil: iso(recentAuthUntil) });
  });

  return routes;
}
