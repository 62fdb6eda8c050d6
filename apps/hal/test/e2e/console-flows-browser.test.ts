import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import {
  createFakeAuthorizationServer,
  createFakeOpenAI,
  type FakeAuthorizationServer,
  type FakeServer,
} from '@hal-ai/providers/testing';
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

// Issue #16 points 3–5, the flows that stopped halfway, in a real browser against a real `hal serve`: an OAuth login
// (from the connections screen and from the panel's status bar) ends in exactly one connection check, the status
// bar shows the connection connected without a reload, and the server page follows its jobs live.
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
    // A reload would drop this mark: the bar must change under it.
    await page.evaluate(() => {
      (window as unknown as { halSamePage: boolean }).halSamePage = true;
    });
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
    await expect(bar.locator('.hal-conn-state').count()).resolves.toBe(0);
    await expect(bar.locator('button.hal-login').count()).resolves.toBe(0);
    await expect(bar.locator('select.hal-model-picker').inputValue()).resolves.toBe('gw-large');
    await expect(page.locator('.hal-input').isDisabled()).resolves.toBe(false);
    await expect(
      page.evaluate(() => (window as unknown as { halSamePage?: boolean }).halSamePage),
    ).resolves.toBe(true);
    expect(testPosts(id)).toBe(0);
    await expect(checksOf(id)).resolves.toBe(1);
    expect(modelLists() - listsBefore).toBe(1);
  });
});
