import type { HalError } from '@hal-ai/spec';
import { errorText, issueText, LOCALES, type MessageKey, validationIssues } from '@hal-ai/ui-panel/i18n';
import type { Child } from 'hono/jsx';
import { CSRF_FIELD } from '../../platform/http/csrf.js';
import type { Operator } from '../../platform/http/env.js';
import { usePageText } from './pages-locale.js';
import { type Notice, noticeText } from './pages-notice.js';

/** The console's sections, in menu order: `[path, label key]` (one language at a time). */
export const NAV_ITEMS = [
  ['/ops', 'nav_overview'],
  ['/ops/servers', 'nav_servers'],
  ['/ops/jobs', 'nav_jobs'],
  ['/ops/releases', 'nav_releases'],
  ['/ops/incidents', 'nav_incidents'],
  ['/ops/audit', 'nav_audit'],
  ['/ops/settings', 'nav_settings'],
  ['/ops/ai', 'nav_ai'],
] as const satisfies ReadonlyArray<readonly [string, MessageKey]>;

/** Which menu item a page belongs to (its path in {@link NAV_ITEMS}). */
export type Section = (typeof NAV_ITEMS)[number][0];

/** What every page passes to {@link Layout}. */
export interface PageFrame {
  title: string;
  section: Section;
  operator: Operator;
  csrfToken: string;
  /** A one-line success notice after an action's redirect: a catalogue code, said in the page's language. */
  notice?: Notice | undefined;
  /** The `maintenance.banner` setting, shown on every page when not empty. */
  banner?: string | undefined;
  /** An error to show above the content, with its code. */
  error?: HalError | undefined;
  /** The path and query the page was asked with (the language switch comes back to it, notice and filter kept). */
  path?: string | undefined;
}

/** The hidden CSRF field every POST form carries. */
export function CsrfField(props: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />;
}

/** Hidden inputs for carried form fields (re-auth and three-step pages re-submit them). */
export function HiddenFields(props: { fields: Record<string, string> }) {
  return (
    <>
      {Object.entries(props.fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
    </>
  );
}

/**
 * An error as a readable sentence in the page's language with its stable code, and each field's failure as a
 * sentence of its own ("이름: 비워 둘 수 없습니다", from the issue's machine fields), never a stack trace. The
 * server's own words (English, for developers: the message and valibot's per-field text) stay one click away for
 * a bug report.
 */
export function ErrorBox(props: { error: HalError }) {
  const { t } = usePageText();
  const issues = validationIssues(props.error.details).map((issue) => ({
    issue,
    shown: issueText(t, issue),
  }));
  const { text } = errorText(t, props.error.code, props.error.message);
  return (
    <div class="alert alert-error" role="alert" data-error-code={props.error.code}>
      <p>
        <strong>{text}</strong> <code class="code">{props.error.code}</code>
      </p>
      {issues.length > 0 && (
        <ul class="error-issues" aria-label={t('form_issues_title')}>
          {issues.map(({ issue, shown }) => (
            <li data-issue-path={issue.path}>{shown.text}</li>
          ))}
        </ul>
      )}
      {text !== props.error.message || issues.length > 0 ? (
        <details class="error-raw">
          <summary>{t('errors_raw')}</summary>
          <p>{props.error.message}</p>
          {issues.length > 0 && (
            <ul>
              {issues.map(({ issue }) => (
                <li>
                  {issue.path ? <code>{issue.path}</code> : null} {issue.message}
                </li>
              ))}
            </ul>
          )}
        </details>
      ) : null}
    </div>
  );
}

/** The link back to a page's section, in the page's language. */
export function BackLink(props: { href: string }) {
  const { t } = usePageText();
  return <a href={props.href}>{t('back')}</a>;
}

/** A small POST form with one button (plus hidden fields): the console's action buttons. */
export function ActionButton(props: {
  action: string;
  csrfToken: string;
  label: string;
  fields?: Record<string, string>;
  danger?: boolean;
}) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfField token={props.csrfToken} />
      <HiddenFields fields={props.fields ?? {}} />
      <button type="submit" class={props.danger ? 'button danger' : 'button'}>
        {props.label}
      </button>
    </form>
  );
}

/**
 * The progress bar and its status line of a release upload (`form[data-upload-progress]`): assets/console.js
 * fills them while the file is sent. Both the upload form and its re-auth form show it, so the real upload after
 * the password prompt shows its progress too.
 */
export function UploadProgress(props: { label: string }) {
  const { t } = usePageText();
  return (
    <>
      <progress class="upload-progress" max={1} value={0} hidden aria-label={props.label}></progress>
      <span
        class="muted"
        role="status"
        data-upload-label=""
        data-template={t('releases_uploading', { percent: '{percent}' })}
        data-failed={t('releases_upload_failed')}
      ></span>
    </>
  );
}

/**
 * A console table in its own sideways scroller (`.table-scroll`): a table cannot be narrower than its longest
 * host name, module or id, so on a narrow window it scrolls inside its box instead of widening the page.
 */
export function ScrollTable(props: { children?: Child }) {
  return (
    <div class="table-scroll">
      <table class="table">{props.children}</table>
    </div>
  );
}

/**
 * A state badge (`active`, `failed`, …) in the operator's language; the CSS colours it by state and
 * `data-state` keeps the stable value for scripts and tests.
 */
export function StateBadge(props: { state: string }) {
  const { t } = usePageText();
  const state = props.state.replace(/[^a-z_-]/g, '');
  const key = `state_${state}` as MessageKey;
  const label = t(key);
  return (
    <span class={`badge state-${state}`} data-state={props.state}>
      {label === key ? props.state : label}
    </span>
  );
}

/** The language switch of the top bar: a small form that saves the operator's preference (no script). */
function LanguageSwitch(props: { csrfToken: string; path: string }) {
  const { t, locale } = usePageText();
  return (
    <form method="post" action="/ops/prefs/locale" class="inline language">
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="next" value={props.path} />
      <label>
        <span class="visually-hidden">{t('language')}</span>
        <select name="locale" aria-label={t('language')}>
          {LOCALES.map((candidate) => (
            <option value={candidate} selected={candidate === locale} lang={candidate}>
              {t(`language_${candidate}`)}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="button link">
        {t('language_change')}
      </button>
    </form>
  );
}

/**
 * The page frame: top navigation, the operator's name and sign-out, the content on the left and the AI
 * panel slot on the right (below the content at ≤1100px — CSS only). The panel script and style are
 * external files: the CSP allows no inline script or style.
 */
export function Layout(props: PageFrame & { children?: Child }) {
  const { t, locale } = usePageText();
  return (
    <html lang={locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} — HAL`}</title>
        <link rel="icon" type="image/svg+xml" href="/ops/assets/favicon.svg" />
        <link rel="stylesheet" href="/ops/assets/console.css" />
        <link rel="stylesheet" href="/ops/assets/panel.css" />
        <script type="module" src="/ops/assets/panel.js"></script>
        <script src="/ops/assets/console.js" defer></script>
      </head>
      <body>
        <a class="skip-link" href="#content">
          {t('skip_to_content')}
        </a>
        <header class="topbar">
          <a class="brand" href="/ops">
            <img src="/ops/assets/favicon.svg" alt="" width="22" height="22" />
            {t('brand')}
          </a>
          <nav class="menu" aria-label={t('nav_label')}>
            <ul>
              {NAV_ITEMS.map(([href, label]) => (
                <li>
                  <a href={href} aria-current={href === props.section ? 'page' : undefined}>
                    {t(label)}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span class="operator" data-operator-id={props.operator.id}>
              {props.operator.username}
            </span>
            <LanguageSwitch csrfToken={props.csrfToken} path={props.path ?? props.section} />
            <form method="post" action="/ops/logout" class="inline">
              <CsrfField token={props.csrfToken} />
              <button type="submit" class="button link">
                {t('sign_out')}
              </button>
            </form>
          </div>
        </header>
        <div class="workspace">
          <main class="content" id="content" tabindex={-1}>
            {props.banner ? (
              <p class="alert alert-warn" role="status" data-maintenance-banner="">
                {props.banner}
              </p>
            ) : null}
            <h1>{props.title}</h1>
            {props.notice ? (
              <p class="alert alert-ok" role="status" data-notice={props.notice.code}>
                {noticeText(t, props.notice)}
              </p>
            ) : null}
            {props.error ? <ErrorBox error={props.error} /> : null}
            {props.children}
          </main>
          <aside
            id="hal-ai-panel"
            data-hal-panel=""
            data-page={props.section}
            aria-label={t('panel_slot')}
          ></aside>
        </div>
      </body>
    </html>
  );
}
