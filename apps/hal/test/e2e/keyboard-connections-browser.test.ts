import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import {
  createFakeAnthropic,
  createFakeAuthorizationServer,
  createFakeOpenAI,
  type FakeAuthorizationServer,
  type FakeServer,
} from '@hal-ai/providers/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectTrapped, focusNow, pressUntil, startFromTop } from './keyboard.test-support.js';
import {
  type ApiCall,
  apiSession,
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  createFakeConnection,
  createTempDirs,
  ensureBuilt,
  launchChromium,
  type RunningHal,
  seriousAxeViolations,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);
const secret = () => randomBytes(18).toString('base64url');

async function openScreen(page: Page, hal: RunningHal): Promise<void> {
  await page.goto(`${hal.url}/ops/ai`);
  await page.waitForSelector('[data-hal-connections][data-ready=true]');
  await page.waitForSelector('.hal-cli-list[data-ready=true]');
}

/** One connection as HAL stores it, read through the API session. */
async function stored(call: ApiCall, id: string) {
  const listed = await call<{
    connections: Array<{ id: string; status: string; tools: { preset: string } }>;
  }>('GET', '/ops/api/ai/connections');
  return listed.body.connections.find((connection) => connection.id === id);
}

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

// Issue #16 points 4 and 7 on the connections screen (`/ops/ai`), in Chromium against a real `hal serve`, for
// the edits no browser test made: replacing an OAuth client's secret (by keyboard; the fake authorization
// server's next token exchange is the proof that HAL uses the new one), the OAuth client fields of Anthropic,
// OpenAI and Gemini (not only "other"), and a tool change that widens what a connection may call, which meets
// the re-authentication dialog (SPEC §2).
describe.skipIf(!hasChromium)('the connections screen edits, by keyboard (Chromium, real hal serve)', () => {
  let hal: RunningHal;
  let shortWindowHal: RunningHal;
  let context: BrowserContext;
  let page: Page;
  let oauth: FakeAuthorizationServer;
  let gateway: FakeServer;
  let anthropic: FakeServer;
  let call: ApiCall;
  const accessToken = secret();
  const temp = createTempDirs();

  beforeAll(async () => {
    const cli = ensureBuilt();
    hal = await startHal(cli, temp.make('hal-kb-conn-'), { LANG: 'C.UTF-8' });
    // Two seconds: the sign-in's window is over by the time the test edits the tools.
    shortWindowHal = await startHal(cli, temp.make('hal-kb-conn-short-'), { HAL_REAUTH_WINDOW_S: '2' });
    oauth = await createFakeAuthorizationServer({
      redirectUri: `${hal.url}/ops/ai/oauth/callback`,
      nextAccessToken: () => accessToken,
    });
    // The gateway answers only the access token the login issued: the check after the login proves HAL uses it.
    gateway = await createFakeOpenAI({ apiKey: accessToken, models: [{ id: 'gw-large' }] });
    anthropic = await createFakeAnthropic({ models: [{ id: 'claude-gw' }] });
    call = await apiSession(hal.url, hal.password);
    ({ context, page } = await launchChromium(temp.make('hal-kb-conn-chromium-')));
    await signIn(page, hal);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await Promise.all([
      hal?.stop(),
      shortWindowHal?.stop(),
      oauth?.close(),
      gateway?.close(),
      anthropic?.close(),
    ]);
    temp.remove();
  });

  it('replaces an OAuth client secret by keyboard: focus comes back, the next token exchange sends the new one', async () => {
    const wrong = secret();
    const created = await call<{ connection: { id: string; status: string } }>(
      'POST',
      '/ops/api/ai/connections',
      {
        provider: 'other',
        name: 'gateway',
        auth: 'oauth',
        baseUrl: gateway.baseUrl,
        model: 'gw-large',
        oauth: {
          preset: 'custom',
          authorizeUrl: `${oauth.url}/authorize`,
          tokenUrl: `${oauth.url}/token`,
          clientId: oauth.clientId,
          clientSecret: wrong,
          scopes: ['models.read'],
        },
      },
    );
    expect(created.body.connection.status).toBe('reauth_required');
    const id = created.body.connection.id;
    await openScreen(page, hal);
    const card = `#connection-${id}`;

    // The login with the secret it was created with: the authorization server refuses it.
    await startFromTop(page);
    await pressUntil(page, `${card} button[data-act=oauth]`, { limit: 200 });
    let popup = context.waitForEvent('page');
    await page.keyboard.press('Enter');
    await (await popup).waitForEvent('close', { timeout: 30_000 }).catch(() => undefined);
    await expect.poll(() => oauth.requests.length, { timeout: 30_000 }).toBe(1);
    expect(oauth.requests[0]?.fields.client_secret).toBe(wrong);
    expect(oauth.issuedAccessTokens).toEqual([]);

    // Replace it: Shift+Tab to the button beside, Enter, type, Enter.
    await pressUntil(page, `${card} button[data-act=replace-client-secret]`, { key: 'Shift+Tab', limit: 5 });
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog[open].hal-secret-dialog');
    await dialog.waitFor();
    await expect(focusNow(page)).resolves.toMatchObject({
      tag: 'input',
      dialog: expect.stringContaining('hal-secret-dialog'),
    });
    await page.keyboard.type(oauth.clientSecret);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    // The card was rendered anew after the change: the same button of the same card has the focus.
    await expect
      .poll(() => focusNow(page))
      .toMatchObject({ dialog: null, connection: id, act: 'replace-client-secret' });
    expect(await page.content()).not.toContain(oauth.clientSecret);

    // The next login: the token exchange carries the new secret, and the connection becomes active with it.
    await pressUntil(page, `${card} button[data-act=oauth]`, { limit: 5 });
    popup = context.waitForEvent('page');
    await page.keyboard.press('Enter');
    await (await popup).waitForEvent('close', { timeout: 30_000 }).catch(() => undefined);
    await page.locator(`${card} .hal-conn-status[data-status=active]`).waitFor({ timeout: 30_000 });
    expect(oauth.requests).toHaveLength(2);
    expect(oauth.requests[1]?.fields.client_secret).toBe(oauth.clientSecret);
    expect(oauth.issuedAccessTokens).toEqual([accessToken]);
    expect(gateway.requests.some((request) => request.path.endsWith('/models'))).toBe(true);
  }, 120_000);

  it('shows the OAuth client fields for Anthropic, OpenAI and Gemini, and sets up Anthropic and OpenAI from the screen', async () => {
    await openScreen(page, hal);
    const form = page.locator('form.hal-conn-form');
    const visible = async () =>
      Object.fromEntries(
        await Promise.all(
          ['oauthAuthorizeUrl', 'oauthTokenUrl', 'oauthClientId', 'oauthClientSecret', 'oauthScopes'].map(
            async (name) => [name, await form.locator(`input[name=${name}]`).isVisible()] as const,
          ),
        ),
      );
    // Gemini uses Google's own endpoints (the preset): only the client and its scopes are the operator's.
    await form.locator('select[name=provider]').selectOption('gemini');
    await form.locator('select[name=auth]').selectOption('oauth');
    await expect(visible()).resolves.toEqual({
      oauthAuthorizeUrl: false,
      oauthTokenUrl: false,
      oauthClientId: true,
      oauthClientSecret: true,
      oauthScopes: true,
    });
    await expect(form.locator('.hal-oauth-note').isVisible()).resolves.toBe(true);

    const setups = [
      { provider: 'anthropic', name: 'claude-oauth', baseUrl: anthropic.url },
      { provider: 'openai', name: 'openai-oauth', baseUrl: gateway.baseUrl },
    ];
    for (const setup of setups) {
      await openScreen(page, hal);
      await form.locator('select[name=provider]').selectOption(setup.provider);
      await form.locator('select[name=auth]').selectOption('oauth');
      await expect(visible()).resolves.toEqual({
        oauthAuthorizeUrl: true,
        oauthTokenUrl: true,
        oauthClientId: true,
        oauthClientSecret: true,
        oauthScopes: true,
      });
      await form.locator('input[name=name]').fill(setup.name);
      await form.locator('input[name=baseUrl]').fill(setup.baseUrl);
      await form.locator('input[name=oauthAuthorizeUrl]').fill(`${oauth.url}/authorize`);
      await form.locator('input[name=oauthTokenUrl]').fill(`${oauth.url}/token`);
      await form.locator('input[name=oauthClientId]').fill(oauth.clientId);
      await form.locator('input[name=oauthClientSecret]').fill(oauth.clientSecret);
      await form.locator('input[name=oauthScopes]').fill('models.read');
      const before = oauth.requests.length;
      const popup = context.waitForEvent('page');
      await form.locator('input[name=oauthScopes]').press('Enter');
      // The create answer's next.action opened the login by itself.
      const opened = await popup;
      await opened.waitForEvent('close', { timeout: 30_000 }).catch(() => undefined);
      await expect.poll(() => oauth.requests.length, { timeout: 30_000 }).toBe(before + 1);
      const exchange = oauth.requests.at(-1);
      expect({
        provider: setup.provider,
        id: exchange?.fields.client_id,
        secret: exchange?.fields.client_secret,
      }).toEqual({ provider: setup.provider, id: oauth.clientId, secret: oauth.clientSecret });
      const card = page.locator(`.hal-conn:has(h3:text-is("${setup.name}"))`);
      await card.locator('.hal-conn-status[data-status=active]').waitFor({ timeout: 30_000 });
    }
  }, 120_000);

  it('meets the re-authentication dialog when a tool change from the screen widens what a connection may call', async () => {
    const model = await createFakeOpenAI({ models: [{ id: 'gpt-small' }] });
    try {
      const shortCall = await apiSession(shortWindowHal.url, shortWindowHal.password);
      const id = await createFakeConnection(shortCall, {
        name: 'narrow',
        baseUrl: model.baseUrl,
        model: 'gpt-small',
      });
      await shortCall('PATCH', `/ops/api/ai/connections/${id}`, { tools: { preset: 'read_only' } });
      expect((await stored(shortCall, id))?.tools.preset).toBe('read_only');
      await signIn(page, shortWindowHal);
      await openScreen(page, shortWindowHal);
      // The sign-in's two-second re-authentication window is over by now.
      await page.waitForTimeout(2500);

      await startFromTop(page);
      await pressUntil(page, `#connection-${id} button[data-act=edit]`, { limit: 200 });
      await page.keyboard.press('Enter');
      await expect(focusNow(page)).resolves.toMatchObject({ tag: 'input' });
      await pressUntil(page, 'form.hal-conn-form select[name=toolPreset]', { limit: 30 });
      await page.keyboard.press('ArrowUp');
      await expect(page.locator('form.hal-conn-form select[name=toolPreset]').inputValue()).resolves.toBe(
        'read_write',
      );
      await pressUntil(page, 'form.hal-conn-form button[type=submit]', { limit: 30 });
      await page.keyboard.press('Enter');

      const reauth = page.locator('dialog[open].hal-reauth');
      await reauth.waitFor({ timeout: 15_000 });
      await expect(focusNow(page)).resolves.toMatchObject({
        tag: 'input',
        dialog: expect.stringContaining('hal-reauth'),
      });
      await expectTrapped(page, 'hal-reauth');
      expect(await seriousAxeViolations(page, ['dialog[open]'])).toEqual([]);
      // Not yet changed: the widening waits for the password.
      expect((await stored(shortCall, id))?.tools.preset).toBe('read_only');
      await pressUntil(page, 'dialog[open].hal-reauth input[type=password]', { limit: 5 });
      await page.keyboard.type(shortWindowHal.password);
      await page.keyboard.press('Enter');
      await reauth.waitFor({ state: 'detached', timeout: 30_000 });
      await expect
        .poll(async () => (await stored(shortCall, id))?.tools.preset, { timeout: 30_000 })
        .toBe('read_write');
      // The keyboard user is not left on the bare page once the form closed.
      await expect.poll(async () => (await focusNow(page)).tag).not.toBe('body');
    } finally {
      await model.close();
    }
  }, 120_000);
});
