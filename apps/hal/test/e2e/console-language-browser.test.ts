import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { translate } from '@hal-ai/ui-panel/i18n';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeArtifact } from '../../src/domain/core/core.test-support.js';
import {
  type ApiCall,
  apiSession,
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  createTempDirs,
  ensureBuilt,
  launchChromium,
  type RunningHal,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);

// Issue #16 point 2 "one language at a time", where English still reached Korean screens: the success notice of a
// console action, the OAuth popup's page, the provider guides of /ops/ai and the error text of pages and the panel,
// in a real browser against a real `hal serve`, Korean by default and English once the operator switches.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

/** Switches the operator's language with the top bar's form, as an operator does. */
async function switchLanguage(page: Page, locale: 'ko' | 'en'): Promise<void> {
  await page.locator('form.language select').selectOption(locale);
  await Promise.all([
    page.waitForURL((url) => url.pathname.startsWith('/ops')),
    page.locator('form.language button').click(),
  ]);
  await expect(page.locator('html').getAttribute('lang')).resolves.toBe(locale);
}

/** A loopback port nothing listens on (bound, then closed): a provider that cannot be reached. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(!hasChromium)('the console speaks one language at a time', () => {
  let hal: RunningHal;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  const temp = createTempDirs();

  beforeAll(async () => {
    const cli = ensureBuilt();
    hal = await startHal(cli, temp.make('hal-language-data-'));
    call = await apiSession(hal.url, hal.password);
    ({ context, page } = await launchChromium(temp.make('hal-language-chromium-')));
    await page.setExtraHTTPHeaders({ 'accept-language': 'en-US,en;q=0.9' });
    await signIn(page, hal);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    temp.remove();
  });

  it("says an action's success notice in the reader's language, and shows no notice a link made up", async () => {
    // Korean by default, whatever the browser asks for once signed in.
    await page.goto(`${hal.url}/ops/servers`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ko');
    const form = page.locator('form[action="/ops/servers"]');
    await form.locator('input[name=name]').fill('web-7');
    await form.locator('input[name=role]').fill('web');
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/ops/servers' && url.searchParams.has('notice')),
      form.locator('button[type=submit]').click(),
    ]);
    const notice = page.locator('.alert-ok[role=status]');
    await expect(notice.textContent()).resolves.toBe(
      translate('ko', 'notice_server_registered', { name: 'web-7' }),
    );
    await expect(notice.getAttribute('data-notice')).resolves.toBe('server_registered');
    const landed = page.url();

    // The release upload lands on its notice in Korean too.
    const artifact = await makeArtifact(temp.make('hal-language-artifact-'), 'portal', '2.1.0', {
      'index.js': 'console.log("portal")\n',
    });
    await page.goto(`${hal.url}/ops/releases`);
    const upload = page.locator('form[data-upload-progress]');
    await upload.locator('input[name=module]').fill('portal');
    await upload.locator('input[name=version]').fill('2.1.0');
    await upload.locator('input[name=sha256]').fill(artifact.sha256);
    await upload.locator('input[name=artifact]').setInputFiles(artifact.file);
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/ops/releases' && url.searchParams.has('notice')),
      upload.locator('button[type=submit]').click(),
    ]);
    const released = page.url();
    await expect(page.locator('.alert-ok[role=status]').textContent()).resolves.toBe(
      translate('ko', 'notice_release_registered', { module: 'portal', version: '2.1.0' }),
    );

    // After switching, the same notices read in English.
    await switchLanguage(page, 'en');
    await page.goto(landed);
    await expect(notice.textContent()).resolves.toBe('Registered web-7 (pending approval)');
    await page.goto(released);
    await expect(notice.textContent()).resolves.toBe('Registered portal@2.1.0');

    // A crafted link puts no text of its choosing in the green line: free text, a changed value or an unknown
    // code shows no notice at all.
    const forged = new URL(landed);
    forged.searchParams.set('notice.name', 'your password expired: call +1 555 0100');
    for (const href of [
      `${hal.url}/ops/servers?notice=${encodeURIComponent('Registered web-7 — now visit evil.example')}`,
      forged.toString(),
      landed.replace('notice=server_registered', 'notice=server_deleted'),
      `${hal.url}/ops/servers?notice=from_the_future`,
    ]) {
      await page.goto(href);
      await expect(page.locator('h1').textContent()).resolves.toBe('Servers');
      await expect(page.locator('.alert-ok').count()).resolves.toBe(0);
    }
    await switchLanguage(page, 'ko');
  });

  it("renders the OAuth popup's page in the operator's language, with the console's stylesheet and icon", async () => {
    const callback = `${hal.url}/ops/ai/oauth/callback?state=not-a-state&code=x`;
    await page.goto(callback);
    const result = page.locator('#hal-oauth-result');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ko');
    await expect(page.locator('h1').textContent()).resolves.toContain(translate('ko', 'oauth_page_failed'));
    await expect(result.locator('[role=alert]').textContent()).resolves.toBe(
      translate('ko', 'error_oauth_state_invalid'),
    );
    // What the report-back script posts is unchanged: the stable code and the server's own message.
    await expect(result.getAttribute('data-code')).resolves.toBe('oauth_state_invalid');
    await expect(result.getAttribute('data-ok')).resolves.toBe('false');
    const look = await page.evaluate(async () => {
      const link = document.querySelector<HTMLLinkElement>('link[rel=icon]');
      const icon = await fetch(link?.href ?? '');
      return {
        display: getComputedStyle(document.body).display,
        border: getComputedStyle(document.querySelector('main') as HTMLElement).borderTopStyle,
        icon: `${icon.status} ${icon.headers.get('content-type')}`,
      };
    });
    expect(look).toEqual({ display: 'grid', border: 'solid', icon: '200 image/svg+xml' });

    await page.goto(`${hal.url}/ops`);
    await switchLanguage(page, 'en');
    await page.goto(callback);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(page.locator('h1').textContent()).resolves.toContain('Login failed');
    await expect(result.locator('[role=alert]').textContent()).resolves.toBe(
      'The OAuth login expired or is not valid. Start it again.',
    );
    await page.goto(`${hal.url}/ops`);
    await switchLanguage(page, 'ko');
  });

  it("shows the providers' setup guides in the reader's language, and Gemini's note agrees with its fields", async () => {
    const guideOf = async (provider: string, auth: string) => {
      const form = page.locator('form.hal-conn-form');
      await form.locator('select[name=provider]').selectOption(provider);
      await form.locator('select[name=auth]').selectOption(auth);
      return {
        // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees, hidden parts left out
        guide: await form.locator('.hal-guide:not(.hal-oauth-note)').innerText(),
        note: await form.locator('.hal-oauth-note').textContent(),
        scopes: await form.locator('input[name=oauthScopes]').isVisible(),
        providers: await form.locator('select[name=provider] option').allTextContents(),
      };
    };
    for (const locale of ['ko', 'en'] as const) {
      if (locale === 'en') {
        await page.goto(`${hal.url}/ops`);
        await switchLanguage(page, 'en');
      }
      await page.goto(`${hal.url}/ops/ai`);
      await page.waitForSelector('[data-hal-connections][data-ready=true]');
      const gemini = await guideOf('gemini', 'oauth');
      expect(gemini.guide).toContain(translate(locale, 'guide_gemini_api_key'));
      expect(gemini.guide).toContain(translate(locale, 'guide_gemini_oauth'));
      // The note says what the fields show: the scopes field is there, and the note says it may stay empty.
      expect(gemini.note).toBe(translate(locale, 'conn_oauth_google_scopes'));
      expect(gemini.scopes).toBe(true);
      expect(gemini.providers).toContain(translate(locale, 'provider_label_other'));
      expect(gemini.providers).toContain(translate(locale, 'provider_label_local_cli'));
      const anthropic = await guideOf('anthropic', 'api_key');
      expect(anthropic.guide).toContain(translate(locale, 'guide_anthropic_oauth'));
      if (locale === 'ko') {
        // Not one English sentence of the providers package reaches a Korean screen.
        expect(gemini.guide).not.toContain('Create a key');
        expect(anthropic.guide).not.toContain('third-party');
      }
    }
    await page.goto(`${hal.url}/ops`);
    await switchLanguage(page, 'ko');
  });

  it("says an error code's sentence in the reader's language on pages and the panel, keeping the server's words", async () => {
    const port = await closedPort();
    const created = await call<{ connection: { status: string } }>('POST', '/ops/api/ai/connections', {
      provider: 'openai',
      name: 'unreachable',
      auth: 'api_key',
      apiKey: randomBytes(18).toString('base64url'),
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'gpt-test',
      identity: { role: '', traits: '', instructions: '' },
    });
    expect(created.body.connection.status).toBe('error');
    for (const locale of ['ko', 'en'] as const) {
      if (locale === 'en') await switchLanguage(page, 'en');
      // A page: the code's sentence, the server's message one click away.
      await page.goto(`${hal.url}/ops/servers/no-such-server`);
      const box = page.locator('.alert-error[role=alert]');
      await expect(box.getAttribute('data-error-code')).resolves.toBe('not_found');
      await expect(box.locator('strong').textContent()).resolves.toBe(translate(locale, 'error_not_found'));
      await expect(box.locator('details summary').textContent()).resolves.toBe(
        translate(locale, 'errors_raw'),
      );
      await expect(box.locator('details p').textContent()).resolves.toContain('no-such-server');
      // The panel's connections screen: the last check's failure.
      await page.goto(`${hal.url}/ops/ai`);
      await page.waitForSelector('[data-hal-connections][data-ready=true]');
      const failure = page.locator('.hal-conn:has(h3:text-is("unreachable")) .hal-failure');
      const code = (await failure.getAttribute('data-error-code')) ?? '';
      expect(code).toMatch(/^provider_/);
      await expect(failure.textContent()).resolves.toBe(
        `${translate(locale, 'conn_last_error')}: ${translate(locale, `error_${code}` as 'error_not_found')}`,
      );
      await expect(failure.getAttribute('title')).resolves.toContain(`(${code})`);
    }
    await switchLanguage(page, 'ko');
  });
});
