import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTestApp,
  sessionCookieFrom,
  type TestApp,
  type TestSession,
} from '../../../test/foundation.test-support.js';
import { makeArtifact, waitFor } from '../core/core.test-support.js';
import { LOCAL_SERVER_ID } from '../core/hal-core.js';

const HOST = 'hal-pages-host';
let t: TestApp;
let session: TestSession;

beforeEach(async () => {
  t = await createTestApp({ core: { hostname: HOST } });
  session = await t.login();
});

afterEach(async () => {
  await t.close();
});

const PAGES = [
  '/ops',
  '/ops/servers',
  `/ops/servers/${LOCAL_SERVER_ID}`,
  '/ops/jobs',
  '/ops/releases',
  '/ops/incidents',
  '/ops/audit',
  '/ops/settings',
  '/ops/ai',
];

async function page(pathname: string, cookie = session.cookie) {
  const response = await t.request(pathname, { headers: { cookie } });
  return { status: response.status, html: await response.text(), response };
}

/** Posts a form the way a browser does: the session cookie plus the `_csrf` field, no header token. */
async function post(pathname: string, fields: Record<string, string>, cookie = session.cookie) {
  const body = new URLSearchParams({ _csrf: session.csrfToken, ...fields });
  const response = await t.request(pathname, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: response.status, html: await response.text(), response };
}

const decodeEntities = (text: string) =>
  text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** The hidden inputs of the (first) form posting to `action`, as a browser would send them. */
function hiddenFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  expect(start, `a form posting to ${action}`).toBeGreaterThan(-1);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"/g)) {
    fields[decodeEntities(match[1] as string)] = decodeEntities(match[2] as string);
  }
  return fields;
}

/** Walks a high-risk action through its three pages; `typed` replaces the retyped identifiers. */
async function threeSteps(action: string, fields: Record<string, string>, typed?: string[]) {
  const impact = await post(action, fields);
  expect(impact.status).toBe(200);
  expect(impact.html).toContain('영향을 읽었습니다');
  const step2 = await post(action, { ...hiddenFields(impact.html, action), confirmImpact: 'true' });
  expect(step2.status).toBe(200);
  const expected = [...step2.html.matchAll(/<code class="identifier">([^<]*)<\/code>/g)].map((m) =>
    decodeEntities(m[1] as string),
  );
  const retyped = Object.fromEntries(
    (typed ?? expected).map((value, i) => [`confirmIdentifier.${i}`, value]),
  );
  const step3 = await post(action, { ...hiddenFields(step2.html, action), ...retyped });
  expect(step3.status).toBe(200);
  expect(step3.html).toContain('>실행</button>');
  return { expected, final: await post(action, hiddenFields(step3.html, action)) };
}

async function uploadRelease(module: string, version: string) {
  const artifact = await makeArtifact(t.deps.config.dataDir, module, version);
  const form = new FormData();
  form.set('_csrf', session.csrfToken);
  form.set('module', module);
  form.set('version', version);
  form.set('sha256', artifact.sha256);
  form.set('artifact', new Blob([await fs.readFile(artifact.file)]), `${module}-${version}.tar.gz`);
  const response = await t.request('/ops/releases', {
    method: 'POST',
    headers: { cookie: session.cookie },
    body: form,
  });
  expect(response.status).toBe(303);
  const { html } = await page('/ops/releases');
  const row = new RegExp(`<tr data-release-id="([^"]+)"><td>${module}</td><td>${version}</td>`).exec(html);
  expect(row).not.toBeNull();
  return row?.[1] as string;
}

async function jobFrom(location: string | null) {
  const id = /^\/ops\/jobs\/([^?]+)/.exec(location ?? '')?.[1];
  expect(id).toBeDefined();
  return waitFor(async () => {
    const { job } = await (t.deps.core as NonNullable<typeof t.deps.core>).jobs.get({ id: id as string });
    return job.state === 'succeeded' || job.state === 'failed' ? job : undefined;
  });
}

describe('console pages', () => {
  it('render for an operator and redirect to the login form without a session', async () => {
    for (const pathname of PAGES) {
      const signedIn = await page(pathname);
      expect(signedIn.status, pathname).toBe(200);
      expect(signedIn.html.startsWith('<!doctype html>')).toBe(true);
      expect(signedIn.response.headers.get('cache-control')).toBe('no-store');
      expect(signedIn.html).toContain('<aside id="hal-ai-panel" data-hal-panel=""');
      expect(signedIn.html).toContain('<script type="module" src="/ops/assets/panel.js"></script>');
      expect(signedIn.html).toContain('alice');
      expect(signedIn.html).toContain('action="/ops/logout"');
      const anonymous = await t.request(pathname);
      expect(anonymous.status, pathname).toBe(302);
      expect(anonymous.headers.get('location')).toBe(`/ops/login?next=${encodeURIComponent(pathname)}`);
    }
    expect((await page('/ops/ai')).html).toContain(
      '<div id="hal-ai-connections" data-hal-connections=""></div>',
    );
    const css = await t.request('/ops/assets/console.css', { headers: { cookie: session.cookie } });
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(await css.text()).toContain('@media (max-width: 1100px)');
    const missing = await page('/ops/jobs/job_missing');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('not_found');
  });

  it('speaks one language at a time: Korean by default, English once the operator chooses it', async () => {
    const korean = (await page('/ops')).html;
    expect(korean).toContain('<html lang="ko">');
    expect(korean).toContain('>개요</a>');
    expect(korean).not.toContain('>Overview<');
    expect(
      /.{0,40}([A-Za-z]{3,} · [가-힣]|[가-힣]+ · [A-Za-z]{3,}).{0,40}/.exec(korean)?.[0] ?? null,
    ).toBeNull();

    // The top bar's language switch saves the preference and comes back to the page it was on.
    const chosen = await post('/ops/prefs/locale', { locale: 'en', next: '/ops/servers' });
    expect(chosen.status).toBe(303);
    expect(chosen.response.headers.get('location')).toBe('/ops/servers');
    for (const pathname of PAGES) {
      const { html, response } = await page(pathname);
      expect(html, pathname).toContain('<html lang="en">');
      expect(response.headers.get('content-language')).toBe('en');
      expect(html, pathname).toContain('>Sign out</button>');
      // The operator's own data and the language switch's own name may be Korean; the console's words are not.
      const words = html.replace(/<option[^>]*lang="ko"[^>]*>[^<]*<\/option>/g, '');
      expect(words, pathname).not.toMatch(/>[^<]*[가-힣][^<]*</);
    }
    const overview = (await page('/ops')).html;
    expect(overview).toContain('>Overview</a>');
    expect(overview).toMatch(/data-metric="uptime">\d+[dhms]/);
    expect(overview).toMatch(/data-dr-age="">never</);
    // The preference is the operator's: another session of the same operator reads it too.
    const again = await t.login();
    expect((await page('/ops', again.cookie)).html).toContain('<html lang="en">');

    // Never an open redirect, never an unknown language.
    const away = await post('/ops/prefs/locale', { locale: 'ko', next: '//evil.example/x' });
    expect(away.response.headers.get('location')).toBe('/ops');
    const unknown = await post('/ops/prefs/locale', { locale: 'fr' });
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('validation_failed');
    expect((await page('/ops')).html).toContain('<html lang="ko">');
  });

  it('shows the local server real metrics on the overview', async () => {
    const { html } = await page('/ops');
    expect(html).toContain(HOST);
    const metric = (name: string) => new RegExp(`data-metric="${name}">([^<]*)<`).exec(html)?.[1] ?? '';
    expect(metric('cpu')).toMatch(/^\d+\.\d%$/);
    expect(metric('load')).toMatch(/^\d+\.\d\d \/ \d+\.\d\d \/ \d+\.\d\d$/);
    expect(metric('uptime')).toMatch(/^\d+(일|시간|분|초)/);
    expect(html).toMatch(/data-metric="memory">\d{1,3}\.\d [KMGT]?i?B \/ \d{1,3}\.\d [KMGT]?i?B/);
    expect(html).toMatch(/data-metric="disk">\d{1,3}\.\d [KMGT]?i?B \/ \d{1,3}\.\d [KMGT]?i?B/);
    expect(html).toMatch(/data-dr-age="">없음</);
  });

  it('uploads, approves in three steps, deploys and rolls back by forms, all visible in jobs and audit', async () => {
    const first = await uploadRelease('portal', '1.0.0');
    const approveAction = `/ops/releases/${first}/approve`;

    // Wrong identifiers → the mismatch message and the retype page again, token still usable.
    const wrong = await threeSteps(approveAction, {}, ['portal', '9.9.9']);
    expect(wrong.expected).toEqual(['portal', '1.0.0']);
    expect(wrong.final.status).toBe(400);
    expect(wrong.final.html).toContain('identifiers_mismatch');
    expect(wrong.final.html).toContain('The retyped identifiers do not match');
    const retry = await post(approveAction, {
      ...hiddenFields(wrong.final.html, approveAction),
      'confirmIdentifier.0': 'portal',
      'confirmIdentifier.1': '1.0.0',
    });
    const done = await post(approveAction, hiddenFields(retry.html, approveAction));
    expect(done.status).toBe(303);
    expect((await page('/ops/releases')).html).toMatch(/portal<\/td><td>1.0.0<\/td>.*?state-approved/s);

    const deploy = await threeSteps('/ops/deployments', {
      module: 'portal',
      version: '1.0.0',
      serverId: LOCAL_SERVER_ID,
    });
    expect(deploy.expected).toEqual([HOST, 'portal@1.0.0']);
    expect(deploy.final.status).toBe(303);
    const deployJob = await jobFrom(deploy.final.response.headers.get('location'));
    expect(deployJob.state).toBe('succeeded');
    const current = path.join(t.deps.config.dataDir, 'agents', LOCAL_SERVER_ID, 'portal', 'current');
    expect(path.basename(await fs.readlink(current))).toBe('1.0.0');

    const second = await uploadRelease('portal', '1.1.0');
    expect((await threeSteps(`/ops/releases/${second}/approve`, {})).final.status).toBe(303);
    const upgrade = await threeSteps('/ops/deployments', {
      module: 'portal',
      version: '1.1.0',
      serverId: LOCAL_SERVER_ID,
    });
    expect((await jobFrom(upgrade.final.response.headers.get('location'))).state).toBe('succeeded');
    expect(path.basename(await fs.readlink(current))).toBe('1.1.0');

    const releases = await page('/ops/releases');
    expect(releases.html).toContain('action="/ops/deployments/rollback"');
    const rollback = await threeSteps('/ops/deployments/rollback', {
      ...hiddenFields(releases.html, '/ops/deployments/rollback'),
    });
    expect(rollback.expected).toEqual([HOST, 'portal']);
    const rollbackJob = await jobFrom(rollback.final.response.headers.get('location'));
    expect(rollbackJob).toMatchObject({ type: 'rollback', state: 'succeeded' });
    expect(path.basename(await fs.readlink(current))).toBe('1.0.0');

    const jobs = await page('/ops/jobs');
    expect(jobs.html).toContain(`data-job-id="${deployJob.id}"`);
    expect(jobs.html).toContain(`data-job-id="${rollbackJob.id}"`);
    const detail = await page(`/ops/jobs/${rollbackJob.id}`);
    expect(detail.html).toContain('data-job-state="succeeded"');
    expect(detail.html).toMatch(/<pre class="log">[^<]+<\/pre>/);

    const audit = await page('/ops/audit');
    expect(audit.html).toContain('data-audit-chain="ok"');
    for (const action of ['release.register', 'release.approve', 'deploy.request', 'deploy.rollback']) {
      expect(audit.html).toContain(`data-audit-action="${action}"`);
    }
    expect(audit.html).toContain(`operator:${t.operator.id}`);
  });

  it('asks for the password again when the re-auth window closed and completes the action after it', async () => {
    t.clock.advance(11 * 60 * 1000);
    const fields = { key: 'disk.full', title: 'Disk almost full', severity: 'major' };
    const refused = await post('/ops/incidents', fields);
    expect(refused.status).toBe(401);
    expect(refused.html).toContain('name="_password"');
    const carried = hiddenFields(refused.html, '/ops/incidents');
    expect(carried).toMatchObject({ ...fields, _csrf: session.csrfToken });

    const wrong = await post('/ops/incidents', { ...carried, _password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('invalid_credentials');
    expect((await t.deps.core?.incidents.list({}))?.incidents).toEqual([]);

    const accepted = await post('/ops/incidents', { ...carried, _password: t.password });
    expect(accepted.status).toBe(303);
    const renewed = sessionCookieFrom(accepted.response);
    expect(renewed).not.toBeNull();
    const { incidents } = (await t.deps.core?.incidents.list({})) ?? { incidents: [] };
    expect(incidents).toEqual([expect.objectContaining({ key: 'disk.full', severity: 'major' })]);
    const list = await page('/ops/incidents', renewed as string);
    expect(list.html).toContain('Disk almost full');
    const audit = await page('/ops/audit', renewed as string);
    expect(audit.html).toContain('data-audit-action="auth.reauth"');
    expect(audit.html).toContain('data-audit-action="incident.open"');
  });

  it('runs the server lifecycle, settings and the maintenance banner by forms', async () => {
    const created = await post('/ops/servers', { name: 'web-1', role: 'web' });
    expect(created.status).toBe(303);
    const servers = await page('/ops/servers');
    const id = /<tr data-server-id="([^"]+)"><td><a href="[^"]+">web-1</.exec(servers.html)?.[1] as string;
    expect(id).toMatch(/^srv_/);
    expect(servers.html).toContain(`action="/ops/servers/${id}/approve"`);
    expect((await post(`/ops/servers/${id}/approve`, {})).status).toBe(303);

    const token = await post(`/ops/servers/${id}/agent-token`, {});
    expect(token.status).toBe(200);
    expect(token.response.headers.get('cache-control')).toBe('no-store');
    const issued = /<pre class="log" data-agent-token="">\s*([^<\s]+)\s*<\/pre>/.exec(
      token.html,
    )?.[1] as string;
    expect(await t.deps.core?.servers.resolveAgentToken(issued)).toBe(id);
    expect((await page(`/ops/servers/${id}`)).html).toContain('data-agent-token-state="issued"');

    expect((await post(`/ops/servers/${id}/maintenance`, { on: 'true' })).status).toBe(303);
    expect((await t.deps.core?.servers.get({ id }))?.server.state).toBe('maintenance');
    const isolated = await threeSteps(`/ops/servers/${id}/isolate`, { reason: 'compromised' });
    expect(isolated.expected).toEqual(['web-1', id]);
    expect(isolated.final.status).toBe(303);
    const deleted = await threeSteps(`/ops/servers/${id}/delete`, {});
    expect(deleted.final.status).toBe(303);
    expect((await t.deps.core?.servers.get({ id }))?.server.state).toBe('deleted');

    // Typed values: the form's text becomes the setting's declared type.
    const concurrency = await threeSteps('/ops/settings', {
      key: 'jobs.concurrency',
      value: '3',
      serverId: '',
    });
    expect(concurrency.expected).toEqual(['jobs.concurrency']);
    expect(concurrency.final.status).toBe(303);
    expect(await t.deps.core?.settings.value('jobs.concurrency')).toBe(3);
    const banner = await threeSteps('/ops/settings', {
      key: 'maintenance.banner',
      value: 'Upgrade at 22:00',
    });
    expect(banner.final.status).toBe(303);
    expect((await page('/ops/jobs')).html).toMatch(/data-maintenance-banner="">Upgrade at 22:00</);
    const settings = await page('/ops/settings');
    expect(settings.html).toMatch(
      /data-setting="jobs.concurrency"><td><code>jobs.concurrency<\/code><\/td><td>3</,
    );
    expect(settings.html).toMatch(/data-setting="mail.relay_password">.*?confidential/s);
    const secret = await post('/ops/settings', { key: 'mail.relay_password', value: 'x' });
    expect(secret.status).toBe(400);
    expect(secret.html).toContain('secret_not_allowed');

    const apply = await threeSteps('/ops/settings/apply', {});
    expect(apply.expected).toEqual(['all servers']);
    const job = await jobFrom(apply.final.response.headers.get('location'));
    expect(job.type).toBe('settings_apply');
    const retry = await post(`/ops/jobs/${job.id}/retry`, {});
    expect(retry.status).toBe(409);
    expect(retry.html).toContain('job_not_retryable');

    // A failed job's error: its code's sentence in the page's language, the job's own English one click away.
    await t.deps.db
      .updateTable('jobs')
      .set({
        state: 'failed',
        error: JSON.stringify({ code: 'agent_unavailable', message: 'agent on web-1 did not answer' }),
      })
      .where('id', '=', job.id)
      .execute();
    const failed = await page(`/ops/jobs/${job.id}`);
    expect(failed.html).toContain(
      '<dd>서버의 에이전트에 연결할 수 없습니다. <code class="code">agent_unavailable</code>',
    );
    expect(failed.html).toMatch(
      /<details class="error-raw"><summary>[^<]+<\/summary><p>agent on web-1 did not answer<\/p>/,
    );
  });

  it('refuses a form post without the CSRF field', async () => {
    const response = await t.request('/ops/incidents', {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: 'x.y', title: 'x', severity: 'minor' }),
    });
    expect(response.status).toBe(403);
  });

  it('renders errors readably with their code and field issues, never a stack', async () => {
    const invalid = await post('/ops/servers', { name: 'Not A Host!', role: 'web' });
    expect(invalid.status).toBe(400);
    expect(invalid.html).toContain('validation_failed');
    expect(invalid.html).toContain('<code>name</code>');
    // Each field's failure is a Korean sentence of its own; valibot's English waits in the details box.
    expect(invalid.html).toMatch(
      /<ul class="error-issues"[^>]*><li data-issue-path="name">이름: [^<A-Za-z]+<\/li><\/ul>/,
    );
    expect(invalid.html).toMatch(/<details class="error-raw">[\s\S]*<code>name<\/code>/);
    expect(invalid.html).not.toMatch(/at .*\.ts:\d+/);
    const early = await post('/ops/deployments', {
      module: 'hal',
      version: '1.0.0',
      serverId: LOCAL_SERVER_ID,
    });
    expect(early.status).toBe(409);
    expect(early.html).toContain('hal_self_deploy');

    // An expired confirmation starts over at the impact page, saying why.
    const action = '/ops/settings/apply';
    const impact = await post(action, {});
    const step2 = await post(action, { ...hiddenFields(impact.html, action), confirmImpact: 'true' });
    const step3 = await post(action, {
      ...hiddenFields(step2.html, action),
      'confirmIdentifier.0': 'all servers',
    });
    t.clock.advance(6 * 60 * 1000);
    const expired = await post(action, hiddenFields(step3.html, action));
    expect(expired.status).toBe(409);
    expect(expired.html).toContain('three_step_required');
    expect(expired.html).toContain('영향을 읽었습니다');
    expect(hiddenFields(expired.html, action).confirmToken).not.toBe(
      hiddenFields(step3.html, action).confirmToken,
    );
  });

  it('has no inline script or style on any page (CSP)', async () => {
    await post('/ops/incidents', { key: 'a.b', title: '<script>alert(1)</script>', severity: 'minor' });
    const rendered = await Promise.all(
      [...PAGES, '/ops?notice=%3Cscript%3Ex%3C%2Fscript%3E'].map(async (p) => (await page(p)).html),
    );
    rendered.push((await post('/ops/servers/srv_local/isolate', { reason: 'test' })).html);
    rendered.push((await post('/ops/settings/apply', {})).html);
    for (const html of rendered) {
      for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\/ops\/assets\//);
      expect(html).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/);
      expect(html).not.toMatch(/\sstyle=/i);
      expect(html).not.toMatch(/<style\b/i);
      expect(html).not.toMatch(/\son[a-z]+=/i);
    }
    expect(rendered.join('')).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
