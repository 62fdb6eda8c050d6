import { HalError } from '@hal-ai/spec';
import { isLocale, LOCALES, type MessageKey } from '@hal-ai/ui-panel/i18n';
import { type Context, Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { writePanelPrefs } from '../../ai/panel-routes.js';
import type { AppEnv } from '../../platform/http/env.js';
import { verifyAuditChain } from '../audit/audit-log.js';
import type { ServerMetrics } from '../core/agent.js';
import type { JOB_STATES } from '../core/core-schemas.js';
import { type HalCore, LOCAL_SERVER_ID, runningCore } from '../core/hal-core.js';
import { type PageDeps, readForm, renderPage } from './pages-actions.js';
import { readConsoleCss, readPageAsset } from './pages-assets.js';
import { publicError } from './pages-format.js';
import type { Section } from './pages-layout.js';
import { operatorPageText, type PageText } from './pages-locale.js';
import { readNotice } from './pages-notice.js';
import { registerOperations } from './pages-operations.js';
import { consolePathOrHome } from './pages-return-path.js';
import {
  AiView,
  AuditView,
  IncidentsView,
  JobsView,
  JobView,
  OverviewView,
  ReleasesView,
  ServersView,
  ServerView,
  SettingsView,
} from './pages-views.js';

type Ctx = Context<AppEnv>;
/** The core validates the value; the cast only lets an unknown one reach that validation. */
type JobState = (typeof JOB_STATES)[number];

/** A query parameter, or undefined when absent or empty. */
function query(c: Ctx, name: string): string | undefined {
  const value = c.req.query(name);
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The console pages under `/ops` (SPEC §1 "Console pages"): server-rendered with hono/jsx, usable without
 * JavaScript, each with the AI panel slot on the right. Reads call the core directly; actions are POST forms
 * (`_csrf` field) that go through `requireRecent` and, for high-risk ones, the three `threeStep` pages, and
 * call the same core functions with the same arguments as the console API (`domain/console-api/hal.ts`). Mounted by
 * `createApp` behind the session and CSRF middleware.
 *
 * @example
 * app.route('/ops', createPages(deps));
 */
export function createPages(deps: PageDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const core = (): HalCore => runningCore(deps);

  /** A GET page: renders the view, or the layout with the error's message and code. */
  function page(titleKey: MessageKey, section: Section, build: (c: Ctx) => Promise<Child>) {
    const title = (text: PageText) => text.t(titleKey);
    return async (c: Ctx) => {
      const notice = readNotice(c);
      try {
        return renderPage(c, deps, { title, section, notice }, await build(c));
      } catch (error) {
        const failure = publicError(error);
        if (failure.status >= 500) deps.logger.error({ err: error, path: c.req.path }, 'console page failed');
        return renderPage(
          c,
          deps,
          { title, section, error: failure },
          <p>
            <a href={section}>{(await operatorPageText(c, deps)).t('back')}</a>
          </p>,
          failure.status as ContentfulStatusCode,
        );
      }
    };
  }

  // The icon and the stylesheet are public (the login page uses them too): they hold nothing about anyone.
  routes.get('/assets/favicon.svg', async (c) => {
    c.header('Content-Type', 'image/svg+xml');
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(new Uint8Array(await readPageAsset('favicon.svg')));
  });

  // The console's page script (a running job follows live, an upload shows progress).
  routes.get('/assets/console.js', async (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'no-cache');
    return c.body(new Uint8Array(await readPageAsset('console.js')));
  });

  // The language switch of the top bar: saves the operator's preference and goes back to the page.
  routes.post('/prefs/locale', async (c) => {
    const { fields } = await readForm(c);
    const locale = fields.locale;
    if (!isLocale(locale)) {
      throw new HalError('validation_failed', `locale must be one of ${LOCALES.join(', ')}`, {
        details: { issues: [{ path: 'locale', message: 'unknown language' }] },
      });
    }
    await writePanelPrefs(deps, c.get('operator').id, { locale });
    // The same page with its query (a signed notice is said again in the new language); only a console page of this
    // HAL, never an open redirect.
    return c.redirect(consolePathOrHome(fields.next), 303);
  });

  routes.get('/assets/console.css', async (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8');
    c.header('Cache-Control', 'no-cache');
    return c.body(await readConsoleCss());
  });

  routes.get(
    '/',
    page('title_overview', '/ops', async (c) => {
      const overview = await core().overview();
      // A fresh sample of this machine, so the first screen never shows stale (or no) numbers.
      let metrics: ServerMetrics | null = overview.local?.metrics ?? null;
      try {
        metrics = (await core().servers.metrics({ id: LOCAL_SERVER_ID, limit: 1 })).current ?? metrics;
      } catch (error) {
        deps.logger.warn({ err: error }, 'local metrics unavailable');
      }
      return <OverviewView overview={overview} metrics={metrics} csrfToken={c.get('csrfToken')} />;
    }),
  );

  routes.get(
    '/servers',
    page('title_servers', '/ops/servers', async (c) => {
      const { servers } = await core().servers.list({ limit: 200 });
      return <ServersView servers={servers} csrfToken={c.get('csrfToken')} />;
    }),
  );

  routes.get(
    '/servers/:id',
    page('title_server', '/ops/servers', async (c) => {
      const id = c.req.param('id') ?? '';
      const detail = await core().servers.get({ id });
      // A fresh reading where the server has an agent; otherwise the latest stored one. The page script's live
      // re-reads (`x-hal-live`) only swap the jobs and deployments: they never ask the agent again.
      const live = c.req.header('x-hal-live') === '1';
      const current = live ? null : (await core().servers.metrics({ id, limit: 1 })).current;
      const { jobs } = await core().jobs.list({ serverId: detail.server.id, limit: 20 });
      return (
        <ServerView
          detail={detail}
          metrics={current ?? detail.metrics}
          jobs={jobs}
          csrfToken={c.get('csrfToken')}
        />
      );
    }),
  );

  routes.get(
    '/jobs',
    page('title_jobs', '/ops/jobs', async (c) => {
      const state = query(c, 'state');
      const cursor = query(c, 'cursor');
      const { jobs, nextCursor } = await core().jobs.list({
        ...(state ? { state: state as JobState } : {}),
        ...(cursor ? { cursor } : {}),
      });
      return <JobsView jobs={jobs} state={state} nextCursor={nextCursor} />;
    }),
  );

  routes.get(
    '/jobs/:id',
    page('title_job', '/ops/jobs', async (c) => {
      const { job } = await core().jobs.get({ id: c.req.param('id') ?? '' });
      return <JobView job={job} csrfToken={c.get('csrfToken')} />;
    }),
  );

  routes.get(
    '/releases',
    page('title_releases', '/ops/releases', async (c) => {
      const [{ releases }, { deployments }, { servers }] = await Promise.all([
        core().releases.list({ limit: 200 }),
        core().deployments.list({ limit: 200 }),
        core().servers.list({ limit: 200 }),
      ]);
      return (
        <ReleasesView
          releases={releases}
          deployments={deployments}
          servers={servers}
          csrfToken={c.get('csrfToken')}
        />
      );
    }),
  );

  routes.get(
    '/incidents',
    page('title_incidents', '/ops/incidents', async (c) => {
      const { incidents } = await core().incidents.list({ limit: 200 });
      return <IncidentsView incidents={incidents} csrfToken={c.get('csrfToken')} />;
    }),
  );

  routes.get(
    '/audit',
    page('title_audit', '/ops/audit', async (c) => {
      const prefix = query(c, 'prefix')?.slice(0, 100);
      const cursor = query(c, 'cursor')?.slice(0, 40);
      const [{ entries, nextCursor }, verification, operators] = await Promise.all([
        deps.audit.list({
          limit: 50,
          ...(cursor ? { cursor } : {}),
          ...(prefix ? { actionPrefix: prefix } : {}),
        }),
        verifyAuditChain(deps.db),
        deps.db.selectFrom('operators').select(['id', 'username']).execute(),
      ]);
      return (
        <AuditView
          operators={new Map(operators.map((o) => [o.id, o.username]))}
          entries={entries}
          verification={verification}
          prefix={prefix}
          nextCursor={nextCursor}
        />
      );
    }),
  );

  routes.get(
    '/settings',
    page('title_settings', '/ops/settings', async (c) => {
      const serverId = query(c, 'serverId');
      const [{ settings }, { servers }] = await Promise.all([
        core().settings.get(serverId ? { serverId } : {}),
        core().servers.list({ limit: 200 }),
      ]);
      return (
        <SettingsView
          settings={settings}
          servers={servers}
          serverId={serverId ?? null}
          csrfToken={c.get('csrfToken')}
        />
      );
    }),
  );

  routes.get(
    '/ai',
    page('title_ai', '/ops/ai', async () => <AiView />),
  );

  registerOperations(routes, deps);
  return routes;
}
