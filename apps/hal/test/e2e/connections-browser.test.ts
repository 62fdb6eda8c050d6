import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  createFakeAuthorizationServer,
  createFakeOpenAI,
  type FakeAuthorizationServer,
  type FakeServer,
} from '@hal-ai/providers/testing';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeLoginCli, installFakeLoginCli } from '../../src/ai/shell/shell-fake-cli.test-support.js';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  CHROMIUM_ARGS,
  createTempDirs,
  ensureBuilt,
  type RunningHal,
  SCREENSHOT_DIR,
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

/** The connections as HAL stores them, read through the browser's own session. */
async function listed(page: Page): Promise<
  Array<{
    name: string;
    status: string;
    reasoning: string;
    tools: { preset: string; enabled: string[] };
    secret: Record<string, unknown>;
  }>
> {
  return page.evaluate(async () => (await (await fetch('/ops/api/ai/connections')).json()).connections);
}

// SPEC §2 and issue #16 point 4 in a real browser against a real `hal serve`: the connections screen sets up an
// operator-supplied OAuth client and logs in by itself after creating it, picks custom tools and a reasoning
// level, replaces a key, deletes with the re-auth dialog, and shows the discovered CLIs as cards.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

describe.skipIf(!hasChromium)('the connections screen in Chromium', () => {
  let hal: RunningHal;
  let shortWindowHal: RunningHal;
  let context: BrowserContext;
  let page: Page;
  let oauth: FakeAuthorizationServer;
  let gateway: FakeServer;
  let keyed: FakeServer;
  let claude: FakeLoginCli;
  const accessToken = secret();
  const goodKey = secret();
  const temp = createTempDirs();
  const tempDir = temp.make;

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    claude = installFakeLoginCli(tempDir('hal-conn-bin-'), 'claude', {
      code: randomBytes(6).toString('hex'),
    });
    hal = await startHal(cli, tempDir('hal-conn-data-'), { CLAUDE_BIN: claude.file, LANG: 'C.UTF-8' });
    // Five seconds, not one: the window opens when the password is checked, and the panel's retried DELETE must
    // land inside it; on a loaded machine (scrypt, Chromium and the host sharing two cores) one second was not
    // always enough, and the test met a second re-auth dialog instead of the deleted card.
    shortWindowHal = await startHal(cli, tempDir('hal-conn-short-'), { HAL_REAUTH_WINDOW_S: '5' });
    oauth = await createFakeAuthorizationServer({
      redirectUri: `${hal.url}/ops/ai/oauth/callback`,
      nextAccessToken: () => accessToken,
    });
    // The gateway answers only the access token the login issued: the check proves HAL uses it.
    gateway = await createFakeOpenAI({ apiKey: accessToken, models: [{ id: 'gw-large' }] });
    keyed = await createFakeOpenAI({ apiKey: goodKey, models: [{ id: 'gpt-small' }] });
    context = await chromium.launchPersistentContext(tempDir('hal-conn-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    await signIn(page, hal);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await Promise.all([
      hal?.stop(),
      shortWindowHal?.stop(),
      oauth?.close(),
      gateway?.close(),
      keyed?.close(),
    ]);
    temp.remove();
  });

  it('shows each discovered CLI as a card, and its log-in button opens the login terminal', async () => {
    await openScreen(page, hal);
    const found = page.locator('.hal-cli-card[data-cli=claude]');
    await expect(found.getAttribute('data-found')).resolves.toBe('true');
    await expect(found.locator('[data-cli-path]').textContent()).resolves.toBe(claude.file);
    await expect(found.locator('[data-cli-version]').textContent()).resolves.toContain('2.1.197');
    await expect(found.locator('[data-cli-login]').textContent()).resolves.toBe('로그인 안 됨');
    await expect(found.locator('.hal-cli-hint').textContent()).resolves.toContain('claude');
    const missing = page.locator('.hal-cli-card[data-cli=codex]');
    await expect(missing.getAttribute('data-found')).resolves.toBe('false');
    await expect(missing.locator('button').count()).resolves.toBe(0);

    await found.locator('button[data-act=cli-login]').click();
    const terminal = page.locator('dialog.hal-terminal[data-shell-id]');
    await terminal.waitFor({ timeout: 30_000 });
    await expect.poll(() => claude.calls().some((call) => call.argv.join(' ') === 'auth login')).toBe(true);
    await terminal.locator('button[data-act=close]').click();
    await terminal.waitFor({ state: 'detached' });
  });

  it('sets up an operator-supplied OAuth client and logs in by itself in the popup after creating it', async () => {
    await openScreen(page, hal);
    const form = page.locator('form.hal-conn-form');
    await form.locator('select[name=provider]').selectOption('other');
    await form.locator('select[name=auth]').selectOption('oauth');
    await expect(form.locator('fieldset.hal-oauth-client').isVisible()).resolves.toBe(true);
    await expect(form.locator('input[name=apiKey]').isVisible()).resolves.toBe(false);
    await form.locator('input[name=name]').fill('gateway');
    await form.locator('input[name=baseUrl]').fill(gateway.baseUrl);
    await form.locator('input[name=oauthAuthorizeUrl]').fill(`${oauth.url}/authorize`);
    await form.locator('input[name=oauthTokenUrl]').fill(`${oauth.url}/token`);
    await form.locator('input[name=oauthClientId]').fill(oauth.clientId);
    await form.locator('input[name=oauthClientSecret]').fill(oauth.clientSecret);
    await form.locator('input[name=oauthScopes]').fill('models.read chat');

    const popup = context.waitForEvent('page');
    await form.locator('button[type=submit]').click();
    // Nobody clicked "OAuth login": the create answer's next.action opened the popup.
    const opened = await popup;
    await opened.waitForEvent('close', { timeout: 30_000 });
    const card = page.locator('.hal-conn:has(h3:has-text("gateway"))');
    await card.locator('.hal-conn-status[data-status=active]').waitFor({ timeout: 30_000 });
    await expect(card.locator('.hal-conn-status').textContent()).resolves.toBe('활성');
    await expect(card.locator('.hal-conn-facts').textContent()).resolves.toContain('OAuth 로그인');
    expect(oauth.calls.authorization_code).toBe(1);
    const exchange = oauth.requests.at(-1);
    expect(exchange?.fields.client_id).toBe(oauth.clientId);
    expect(exchange?.fields.client_secret).toBe(oauth.clientSecret);
    expect(gateway.requests.some((request) => request.path.endsWith('/models'))).toBe(true);
    const stored = (await listed(page)).find((connection) => connection.name === 'gateway');
    expect(stored?.secret.hasToken).toBe(true);
    // The client secret and the token stay on the server.
    expect(JSON.stringify(await listed(page))).not.toContain(oauth.clientSecret);
    expect(await page.content()).not.toContain(accessToken);
  });

  it('picks custom tools and a reasoning level, shows them in words, and replaces the API key', async () => {
    await openScreen(page, hal);
    const form = page.locator('form.hal-conn-form');
    await form.locator('select[name=provider]').selectOption('openai');
    await form.locator('input[name=name]').fill('keyed');
    // A wrong key first: the check fails, then the replaced key makes the connection active.
    await form.locator('input[name=apiKey]').fill(secret());
    await form.locator('input[name=baseUrl]').fill(keyed.baseUrl);
    await form.locator('select[name=toolPreset]').selectOption('custom');
    const picker = form.locator('fieldset.hal-tool-picker');
    await expect(picker.isVisible()).resolves.toBe(true);
    await picker.locator('[data-risk=read] input[value=hal_health]').check();
    await picker.locator('[data-risk=write] input[value=hal_incident_open]').check();
    await expect(picker.locator('[data-risk=high] input[value=hal_server_isolate]').count()).resolves.toBe(1);
    await form.locator('select[name=reasoning]').selectOption('high');
    await form.locator('button[type=submit]').click();

    const card = page.locator('.hal-conn:has(h3:has-text("keyed"))');
    await card.locator('.hal-conn-status[data-status=error]').waitFor({ timeout: 30_000 });
    const facts = await card.locator('.hal-conn-facts').textContent();
    expect(facts).toContain('도구 2개');
    expect(facts).toContain('높음');
    expect(facts).toContain('API 키');
    const stored = (await listed(page)).find((connection) => connection.name === 'keyed');
    expect(stored?.tools).toEqual({ preset: 'custom', enabled: ['hal_health', 'hal_incident_open'] });
    expect(stored?.reasoning).toBe('high');

    await card.locator('button[data-act=replace-key]').click();
    const dialog = page.locator('dialog.hal-secret-dialog');
    await dialog.waitFor();
    await expect(page.evaluate(() => document.activeElement?.getAttribute('name'))).resolves.toBe('secret');
    await dialog.locator('input[name=secret]').fill(goodKey);
    await dialog.locator('button[type=submit]').click();
    await card.locator('.hal-conn-status[data-status=active]').waitFor({ timeout: 30_000 });
    await expect(card.locator('.hal-conn-secret').textContent()).resolves.toContain(goodKey.slice(-4));
    expect(await page.content()).not.toContain(goodKey);
    // The focus went back to the button that opened the dialog (the card was re-rendered: its successor).
    await expect(page.locator('dialog.hal-secret-dialog').count()).resolves.toBe(0);

    for (const width of [1400, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `connections-${width}.png`), fullPage: true });
      // Nothing on the screen is wider than the window.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('deletes a connection after the confirm dialog, asking for the password again when the window closed', async () => {
    await signIn(page, shortWindowHal);
    await openScreen(page, shortWindowHal);
    const form = page.locator('form.hal-conn-form');
    await form.locator('select[name=provider]').selectOption('local-cli');
    await form.locator('input[name=name]').fill('doomed');
    await form.locator('button[type=submit]').click();
    const reauthOnCreate = page.locator('dialog.hal-reauth');
    const card = page.locator('.hal-conn:has(h3:has-text("doomed"))');
    await Promise.race([reauthOnCreate.waitFor(), card.waitFor()]);
    if (await reauthOnCreate.isVisible()) {
      await reauthOnCreate.locator('input[type=password]').fill(shortWindowHal.password);
      await reauthOnCreate.locator('button[type=submit]').click();
    }
    await card.waitFor({ timeout: 30_000 });
    // The five-second re-authentication window is over by now, whatever happened before.
    await page.waitForTimeout(5500);

    await card.locator('button[data-act=delete]').click();
    const confirm = page.locator('dialog.hal-confirm-dialog');
    await confirm.waitFor();
    await expect(confirm.textContent()).resolves.toContain('doomed');
    // Escape cancels: nothing is deleted.
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await expect(card.count()).resolves.toBe(1);

    await card.locator('button[data-act=delete]').click();
    await confirm.locator('button.hal-danger').click();
    const reauth = page.locator('dialog.hal-reauth');
    await reauth.waitFor();
    await reauth.locator('input[type=password]').fill(shortWindowHal.password);
    await reauth.locator('button[type=submit]').click();
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    expect((await listed(page)).map((connection) => connection.name)).not.toContain('doomed');
  });
});
