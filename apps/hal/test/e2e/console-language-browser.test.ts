import fs from 'node:fs';
import { translate } from '@hal-ai/ui-panel/i18n';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeArtifact } from '../../src/domain/core/core.test-support.js';
import {
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
// console action, in a real browser against a real `hal serve`, Korean by default and English once the operator
// switches.
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

describe.skipIf(!hasChromium)('the console speaks one language at a time', () => {
  let hal: RunningHal;
  let context: BrowserContext;
  let page: Page;
  const temp = createTempDirs();

  beforeAll(async () => {
    const cli = ensureBuilt();
    hal = await startHal(cli, temp.make('hal-language-data-'));
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
});
