import type { HalError } from '@hal-ai/spec';
import type { Child } from 'hono/jsx';
import { CSRF_FIELD } from '../../platform/http/csrf.js';
import type { Operator } from '../../platform/http/env.js';
import { errorIssues } from './pages-format.js';

/** The console's sections, in menu order: `[path, English label, Korean label]`. */
export const NAV_ITEMS = [
  ['/ops', 'Overview', '개요'],
  ['/ops/servers', 'Servers', '서버'],
  ['/ops/jobs', 'Jobs', '작업'],
  ['/ops/releases', 'Releases', '릴리스'],
  ['/ops/incidents', 'Incidents', '장애'],
  ['/ops/audit', 'Audit', '감사'],
  ['/ops/settings', 'Settings', '설정'],
  ['/ops/ai', 'AI', 'AI'],
] as const;

/** Which menu item a page belongs to (its path in {@link NAV_ITEMS}). */
export type Section = (typeof NAV_ITEMS)[number][0];

/** What every page passes to {@link Layout}. */
export interface PageFrame {
  title: string;
  section: Section;
  operator: Operator;
  csrfToken: string;
  /** A one-line success note (e.g. after a redirect). */
  notice?: string | undefined;
  /** The `maintenance.banner` setting, shown on every page when not empty. */
  banner?: string | undefined;
  /** An error to show above the content, with its code. */
  error?: HalError | undefined;
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

/** An error as a readable message with its stable code (and field issues), never a stack trace. */
export function ErrorBox(props: { error: HalError }) {
  const issues = errorIssues(props.error);
  return (
    <div class="alert alert-error" role="alert">
      <p>
        <strong>{props.error.message}</strong> <code class="code">{props.error.code}</code>
      </p>
      {issues.length > 0 && (
        <ul>
          {issues.map((issue) => (
            <li>
              {issue.path ? <code>{issue.path}</code> : null} {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
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

/** A state badge (`active`, `failed`, …); the CSS colours it by state. */
export function StateBadge(props: { state: string }) {
  return <span class={`badge state-${props.state.replace(/[^a-z_-]/g, '')}`}>{props.state}</span>;
}

/**
 * The page frame: top navigation, the operator's name and sign-out, the content on the left and the AI
 * panel slot on the right (below the content at ≤1100px — CSS only). The panel script and style are
 * external files: the CSP allows no inline script or style.
 */
export function Layout(props: PageFrame & { children?: Child }) {
  return (
    <html lang="ko">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · HAL`}</title>
        <link rel="stylesheet" href="/ops/assets/console.css" />
        <link rel="stylesheet" href="/ops/assets/panel.css" />
        <script type="module" src="/ops/assets/panel.js"></script>
      </head>
      <body>
        <header class="topbar">
          <a class="brand" href="/ops">
            HAL
          </a>
          <nav class="menu" aria-label="Console">
            <ul>
              {NAV_ITEMS.map(([href, label, korean]) => (
                <li>
                  <a
                    href={href}
                    aria-current={href === props.section ? 'page' : undefined}
                    lang="en"
                    title={korean}
                  >
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span class="operator" data-operator-id={props.operator.id}>
              {props.operator.username}
            </span>
            <form method="post" action="/ops/logout" class="inline">
              <CsrfField token={props.csrfToken} />
              <button type="submit" class="button link">
                Sign out · 로그아웃
              </button>
            </form>
          </div>
        </header>
        <div class="workspace">
          <main class="content" id="content">
            {props.banner ? (
              <p class="alert alert-warn" role="status" data-maintenance-banner="">
                {props.banner}
              </p>
            ) : null}
            <h1>{props.title}</h1>
            {props.notice ? (
              <p class="alert alert-ok" role="status">
                {props.notice}
              </p>
            ) : null}
            {props.error ? <ErrorBox error={props.error} /> : null}
            {props.children}
          </main>
          <aside id="hal-ai-panel" data-hal-panel="" data-page={props.section} aria-label="AI panel"></aside>
        </div>
      </body>
    </html>
  );
}
