import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import {
  createFakeAuthorizationServer,
  createFakeOpenAI,
  type FakeAuthorizationServer,
  type FakeServer,
} from '@hal-ai/providers/testing';
import { translate } from '@hal-ai/ui-panel/i18n';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ApiCall,
  apiSession,
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  createTempDirs,
  ensureBuilt,
  launchChromium,
  panelReady,
  type RunningHal,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);
const secret = () => randomBytes(18).toString('base64url');

interface AgentCommand {
  id: string;
  op: string;
}

/**
 * Plays a server's `hal agent` over its real HTTP routes: answers every `metrics` command at once (counting them) and
 * hands the first `health` command to the test, which answers it when it wants the job to finish.
 */
function serveAgent(url: string, headers: Record<string, string>) {
  let stopped = false;
  let metrics = 0;
  let gotHealth: (command: AgentCommand) => void = () => undefined;
  const health = new Promise<AgentCommand>((resolve) => {
    gotHealth = resolve;
  });
  const answer = async (command: AgentCommand, result: unknown) => {
    const answered = await fetch(`${url}/agent/api/results/${command.id}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, result, logs: [] }),
    });
    expect(answered.status).toBe(204);
  };
  void (async () => {
    while (!stopped) {
      const next = await fetch(`${url}/agent/api/next?waitS=2`, { headers }).catch(() => null);
      const command = next?.ok ? ((await next.json()) as { command: AgentCommand | null }).command : null;
      if (!command) continue;
      if (command.op === 'health') gotHealth(command);
      else if (command.op === 'metrics') {
        metrics += 1;
        await answer(command, {
          at: new Date().toISOString(),
          cpuPercent: 3,
          memory: { totalBytes: 8e9, usedBytes: 2e9 },
          disk: { path: '/', totalBytes: 1e11, freeBytes: 6e10 },
          load: [0.1, 0.2, 0.3],
          uptimeS: 3600,
        });
      }
    }
  })();
  return { health, answer, metricsAsked: () => metrics, stop: () => (stopped = true) };
}

// Issue #16 points 3–5, the flows that stopped halfway, in a real browser against a real `hal serve`: an OAuth login
// (from the connections screen and from the panel's status bar) ends in exactly one connection check, the status
// bar shows the connection connected without a reload, the server page follows its jobs live, and the language
// switch comes back to the very page it was on (its query and signed notice included).
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

describe.skipIf(!hasChromium)('console flows that run to their end', () => {
  let hal: RunningHal;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  let oauth: FakeAuthorizationServer;
  let gateway: FakeServer;
  const accessToken = secret();
  const temp = createTempDirs();
  /** Every request any page of the browser sent (the popups' too), in order. */
  const sent: Request[] = [];

  beforeAll(async () => {
    hal = await startHal(ensureBuilt(), temp.make('hal-flows-data-'));
    call = await apiSession(hal.url, hal.password);
    oauth = await createFakeAuthorizationServer({
      redirectUri: `${hal.url}/ops/ai/oauth/callback`,
      nextAccessToken: () => accessToken,
    });
    // The gateway answers only the token the login issued: a model list it serves is a check HAL really ran.
    gateway = await createFakeOpenAI({ apiKey: accessToken, models: [{ id: 'gw-large' }] });
    ({ context, page } = await launchChromium(temp.make('hal-flows-chromium-')));
    context.on('request', (request) => sent.push(request));
    await signIn(page, hal);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await Promise.all([hal?.stop(), oauth?.close(), gateway?.close()]);
    temp.remove();
  });

  async function markPage(): Promise<void> {
    // A reload would drop this mark: the page must change under it.
    await page.evaluate(() => {
      (window as unknown as { halSamePage: boolean }).halSamePage = true;
    });
  }

  async function samePage(): Promise<boolean | undefined> {
    return page.evaluate(() => (window as unknown as { halSamePage?: boolean }).halSamePage);
  }

  /** An OAuth connection on the gateway, through the fake authorization server; it waits for its login. */
  async function oauthConnection(name: string): Promise<string> {
    const created = await call<{ connection: { id: string; status: string } }>(
      'POST',
      '/ops/api/ai/connections',
      {
        provider: 'other',
        name,
        auth: 'oauth',
        baseUrl: gateway.baseUrl,
        model: 'gw-large',
        oauth: {
          preset: 'custom',
          authorizeUrl: `${oauth.url}/authorize`,
          tokenUrl: `${oauth.url}/token`,
          clientId: oauth.clientId,
          clientSecret: oauth.clientSecret,
          scopes: ['models.read'],
        },
      },
    );
    expect(created.body.connection.status).toBe('reauth_required');
    return created.body.connection.id;
  }

  /** The connection checks HAL ran for `id` (each one is audited as `ai.connection.check`). */
  async function checksOf(id: string): Promise<number> {
    const listed = await call<{ entries: Array<{ action: string; target: string | null }> }>(
      'GET',
      '/ops/api/hal/audit?prefix=ai.connection.check&limit=200',
    );
    return listed.body.entries.filter(
      (entry) => entry.action === 'ai.connection.check' && entry.target === `connection:${id}`,
    ).length;
  }

  const modelLists = () => gateway.requests.filter((request) => request.path.endsWith('/models')).length;
  const testPosts = (id: string) =>
    sent.filter((request) => request.method() === 'POST' && request.url().endsWith(`/connections/${id}/test`))
      .length;
  /** The pages re-read the connections once the popup reported back (the screen and the panel, each once). */
  const connectionReads = (from: number) =>
    sent
      .slice(from)
      .filter(
        (request) =>
          request.method() === 'GET' && new URL(request.url()).pathname === '/ops/api/ai/connections',
      ).length;

  it('finishes an OAuth login on /ops/ai with exactly one connection check', async () => {
    const id = await oauthConnection('gw-screen');
    await page.goto(`${hal.url}/ops/ai`);
    await page.waitForSelector('[data-hal-connections][data-ready=true]');
    await panelReady(page);
    const listsBefore = modelLists();
    const started = sent.length;
    const card = page.locator(`.hal-conn[data-connection-id="${id}"]`);
    const popup = context.waitForEvent('page');
    await card.locator('button[data-act=oauth]').click();
    const opened = await popup;
    await opened.waitForEvent('close', { timeout: 30_000 });
    await card.locator('.hal-conn-status[data-status=active]').waitFor({ timeout: 30_000 });
    // Both listeners on this page (the screen and the panel) have read the verdict again.
    await expect.poll(() => connectionReads(started), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await expect(page.locator('.hal-conn-message').textContent()).resolves.toContain('gw-screen');
    // One check: the one HAL ran as the callback stored the tokens. No screen asks for another.
    expect(testPosts(id)).toBe(0);
    await expect(checksOf(id)).resolves.toBe(1);
    expect(modelLists() - listsBefore).toBe(1);
    expect(oauth.calls.authorization_code).toBe(1);
  });

  it('re-authenticates from the status bar to the end: popup, callback, connected, no reload', async () => {
    const id = await oauthConnection('gw-panel');
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
    await page.locator('[role=tab]:has(.hal-tab-title:text-is("gw-panel"))').click();
    const bar = page.locator('.hal-room-bar');
    await expect(bar.locator('.hal-conn-state').textContent()).resolves.toContain('gw-panel');
    await expect(page.locator('.hal-input').isDisabled()).resolves.toBe(true);
    await markPage();
    const listsBefore = modelLists();
    const started = sent.length;
    const popup = context.waitForEvent('page');
    await bar.locator('button.hal-login[data-auth=oauth]').click();
    const opened = await popup;
    // The fake login page redirects straight back to HAL's callback, whose script reports to the panel and closes.
    await opened.waitForEvent('close', { timeout: 30_000 });
    const visited = sent.slice(started).map((request) => new URL(request.url()));
    const authorize = visited.find((url) => url.origin === oauth.url && url.pathname === '/authorize');
    expect(authorize?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(visited.some((url) => url.pathname === '/ops/ai/oauth/callback')).toBe(true);
    await bar.locator('select.hal-model-picker').waitFor({ timeout: 30_000 });
    // The picker is in the bar before the login too; what the login changes is the state line, which goes once the
    // panel's refresh after the callback lands: wait for that, not for the picker.
    await bar.locator('.hal-conn-state').waitFor({ state: 'detached', timeout: 30_000 });
    await expect(bar.locator('button.hal-login').count()).resolves.toBe(0);
    await expect(bar.locator('select.hal-model-picker').inputValue()).resolves.toBe('gw-large');
    await expect(page.locator('.hal-input').isDisabled()).resolves.toBe(false);
    await expect(samePage()).resolves.toBe(true);
    expect(testPosts(id)).toBe(0);
    await expect(checksOf(id)).resolves.toBe(1);
    expect(modelLists() - listsBefore).toBe(1);
  });

  it("follows a server's jobs live on its own page, with one mechanism, until they settle", async () => {
    const created = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
      name: 'app-1',
      role: 'app',
    });
    const serverId = created.body.server.id;
    expect((await call('POST', `/ops/api/hal/servers/${serverId}/approve`)).status).toBe(200);
    const issued = await call<{ token: string }>('POST', `/ops/api/hal/servers/${serverId}/agent-token`);
    // Another server's job is not this server's: its page does not list it.
    const other = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
      name: 'app-2',
      role: 'app',
    });
    expect((await call('POST', `/ops/api/hal/servers/${other.body.server.id}/approve`)).status).toBe(200);
    const foreign = await call<{ job: { id: string } }>('POST', '/ops/api/hal/deployments/health', {
      serverId: other.body.server.id,
      module: 'billing',
    });
    expect(foreign.status).toBe(202);
    const queued = await call<{ job: { id: string } }>('POST', '/ops/api/hal/deployments/health', {
      serverId,
      module: 'portal',
    });
    expect(queued.status).toBe(202);
    const jobId = queued.body.job.id;

    // The test is the server's agent: it answers readings at once and holds the health check until told.
    const agentSide = serveAgent(hal.url, { authorization: `Bearer ${issued.body.token}` });
    try {
      await page.goto(`${hal.url}/ops/servers/${serverId}`);
      const row = page.locator(`[data-live-part=jobs] tr[data-job-id="${jobId}"]`);
      await expect(row.locator('[data-state]').getAttribute('data-state')).resolves.toMatch(
        /^(queued|running)$/,
      );
      await expect(page.locator(`tr[data-job-id="${foreign.body.job.id}"]`).count()).resolves.toBe(0);
      await expect(page.locator('[data-live-part][data-job-live]').count()).resolves.toBe(1);
      await page.waitForFunction(() => document.documentElement.dataset.jobFollowing === 'true');
      await markPage();
      const health = await agentSide.health;
      await row.locator('[data-state=running]').waitFor({ timeout: 20_000 });
      await agentSide.answer(health, { ok: true, detail: 'portal answers' });
      await row.locator('[data-state=succeeded]').waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => document.documentElement.dataset.jobSettled === 'true', null, {
        timeout: 20_000,
      });
      await expect(page.locator('[data-job-live]').count()).resolves.toBe(0);
      await expect(samePage()).resolves.toBe(true);
      // Only the page's own load asked the agent for a reading; the live re-reads did not.
      expect(agentSide.metricsAsked()).toBe(1);
    } finally {
      agentSide.stop();
    }
  });

  it('switches the language on the page it was on: same path and query, the signed notice said again', async () => {
    await page.goto(`${hal.url}/ops/servers`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ko');
    const form = page.locator('form[action="/ops/servers"]');
    await form.locator('input[name=name]').fill('web-9');
    await form.locator('input[name=role]').fill('web');
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/ops/servers' && url.searchParams.has('notice')),
      form.locator('button[type=submit]').click(),
    ]);
    const landed = new URL(page.url());
    const notice = page.locator('.alert-ok[role=status]');
    await expect(notice.textContent()).resolves.toBe(
      translate('ko', 'notice_server_registered', { name: 'web-9' }),
    );

    await page.locator('form.language select').selectOption('en');
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/ops/servers' && url.search === landed.search),
      page.locator('form.language button').click(),
    ]);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    // Verified again with the session's token, the notice reads in the new language.
    await expect(notice.textContent()).resolves.toBe(
      translate('en', 'notice_server_registered', { name: 'web-9' }),
    );
    await expect(notice.getAttribute('data-notice')).resolves.toBe('server_registered');

    // A filtered list keeps its filter too.
    await page.goto(`${hal.url}/ops/jobs?state=succeeded`);
    await page.locator('form.language select').selectOption('ko');
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/ops/jobs' && url.search === '?state=succeeded'),
      page.locator('form.language button').click(),
    ]);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ko');

    // The `next` field is the browser's to change: one that leaves this HAL's console goes home instead. Asked
    // without following the redirect, so nothing is ever sent to the address it names.
    const csrf = await page.locator('form.language input[name=_csrf]').inputValue();
    const cookie = (await context.cookies(hal.url)).map((one) => `${one.name}=${one.value}`).join('; ');
    for (const next of [
      '//127.0.0.2:9/ops',
      '/\\127.0.0.2:9/ops',
      '/ops/../login',
      'http://127.0.0.2:9/ops',
    ]) {
      const answer = await fetch(`${hal.url}/ops/prefs/locale`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: hal.url },
        body: new URLSearchParams({ _csrf: csrf, locale: 'ko', next }).toString(),
      });
      expect(answer.status, next).toBe(303);
      expect(answer.headers.get('location'), next).toBe('/ops');
    }
  });
});
