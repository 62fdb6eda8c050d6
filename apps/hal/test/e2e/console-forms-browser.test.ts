import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { type Locale, translate } from '@hal-ai/ui-panel/i18n';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  createTempDirs,
  ensureBuilt,
  launchChromium,
  type RunningHal,
  reauthIfAsked,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);

// Issue #16 point 2 "one language at a time", for refused forms: a login, a console page's form and the panel's
// connection form, refused by the server's schema, say each field's failure in the operator's language — never
// valibot's (or the schema's) English as the visible text — in a real browser against a real `hal serve`.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

/** Switches the operator's language with the top bar's form, as an operator does. */
async function switchLanguage(page: Page, locale: Locale): Promise<void> {
  await page.locator('form.language select').selectOption(locale);
  await Promise.all([
    page.waitForURL((url) => url.pathname.startsWith('/ops')),
    page.locator('form.language button').click(),
  ]);
  await expect(page.locator('html').getAttribute('lang')).resolves.toBe(locale);
}

/** What a reader sees of an element (closed `<details>` and the `title` left out, as on screen). */
async function visibleText(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees, hidden parts left out
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

/** `{field}: {problem}` as the catalogue says it. */
function line(
  locale: Locale,
  field: Parameters<typeof translate>[1],
  problem: Parameters<typeof translate>[1],
) {
  return translate(locale, 'form_issue_line', {
    field: translate(locale, field),
    problem: translate(locale, problem),
  });
}

describe.skipIf(!hasChromium)('refused forms speak the operator’s language', () => {
  let hal: RunningHal;
  let context: BrowserContext;
  let page: Page;
  const temp = createTempDirs();

  beforeAll(async () => {
    const cli = ensureBuilt();
    hal = await startHal(cli, temp.make('hal-forms-data-'));
    ({ context, page } = await launchChromium(temp.make('hal-forms-chromium-')));
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    temp.remove();
  });

  for (const [locale, header] of [
    ['ko', 'ko-KR,ko;q=0.9'],
    ['en', 'en-US,en;q=0.9'],
  ] as const) {
    it(`says a refused login in the language the browser asks for (${locale}): the field, a wrong password`, async () => {
      await page.setExtraHTTPHeaders({ 'accept-language': header });
      await page.goto(`${hal.url}/ops/login`);
      // Longer than any credential HAL takes (1024): the browser lets it through, the server's schema does not.
      await page.fill('input[name=username]', 'u'.repeat(1025));
      await page.fill('input[name=password]', 'x');
      await Promise.all([page.waitForEvent('load'), page.locator('button[type=submit]').click()]);
      const alert = page.locator('.alert-error[role=alert]');
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe(locale);
      await expect(alert.getAttribute('data-error-code')).resolves.toBe('validation_failed');
      await expect(alert.locator('p').textContent()).resolves.toBe(
        translate(locale, 'error_validation_failed'),
      );
      const expected = translate(locale, 'form_issue_line', {
        field: translate(locale, 'form_field_username'),
        problem: translate(locale, 'form_issue_max_length', { max: 1024 }),
      });
      await expect(alert.locator('li').allTextContents()).resolves.toEqual([expected]);
      if (locale === 'ko') {
        expect(await visibleText(alert)).not.toMatch(/[A-Za-z]{3,}/);
        expect(expected).toBe('사용자 이름: 1024자 이하여야 합니다');
      }

      await page.fill('input[name=username]', 'admin');
      await page.fill('input[name=password]', `wrong-${randomBytes(6).toString('hex')}`);
      await Promise.all([page.waitForEvent('load'), page.locator('button[type=submit]').click()]);
      await expect(alert.getAttribute('data-error-code')).resolves.toBe('invalid_credentials');
      await expect(visibleText(alert)).resolves.toBe(translate(locale, 'login_failed'));
    });
  }

  for (const locale of ['ko', 'en'] as const) {
    it(`says a console page's refused form field by field (${locale}), the schema's English one click away`, async () => {
      if (locale === 'ko') {
        await page.setExtraHTTPHeaders({ 'accept-language': 'ko-KR,ko;q=0.9' });
        await signIn(page, hal);
      } else await switchLanguage(page, 'en');
      await page.goto(`${hal.url}/ops/incidents`);
      const form = page.locator('form[action="/ops/incidents"]');
      // Not a key (capitals, a space, "!"): only `required` in the browser, the schema's pattern on the server.
      await form.locator('input[name=key]').fill('Mail Queue!');
      await form.locator('input[name=title]').fill('queue stuck');
      await Promise.all([page.waitForEvent('load'), form.locator('button[type=submit]').click()]);
      const box = page.locator('.alert-error[role=alert]');
      await expect(box.getAttribute('data-error-code')).resolves.toBe('validation_failed');
      await expect(box.locator('strong').textContent()).resolves.toBe(
        translate(locale, 'error_validation_failed'),
      );
      await expect(box.locator('.error-issues li').allTextContents()).resolves.toEqual([
        line(locale, 'form_field_key', 'form_issue_format'),
      ]);
      // The schema's own English is there for a bug report, one click away, and not on the screen.
      expect(await visibleText(box)).not.toContain('a short key like');
      await box.locator('details summary').click();
      expect(await visibleText(box)).toContain('a short key like');
      if (locale === 'ko') {
        await box.locator('details summary').click();
        expect(await visibleText(box)).not.toMatch(/\b(?:[A-Za-z]{3,} ){2}/);
      } else await switchLanguage(page, 'ko');
    });
  }

  for (const locale of ['ko', 'en'] as const) {
    it(`says the panel's refused connection form field by field (${locale}): an empty name`, async () => {
      if (locale === 'en') {
        await page.goto(`${hal.url}/ops`);
        await switchLanguage(page, 'en');
      }
      await page.goto(`${hal.url}/ops/ai`);
      await page.waitForSelector('[data-hal-connections][data-ready=true]');
      const form = page.locator('form.hal-conn-form');
      await form.locator('select[name=provider]').selectOption('openai');
      await form.locator('select[name=auth]').selectOption('api_key');
      // Spaces pass the browser's `required`; the form trims them, and the server's schema refuses the empty name.
      await form.locator('input[name=name]').fill('   ');
      await form.locator('input[name=apiKey]').fill(randomBytes(18).toString('base64url'));
      await form.locator('button[type=submit]').click();
      await reauthIfAsked(page, hal.password, 1000);
      const status = page.locator('.hal-conn-message[data-error-code=validation_failed]');
      await status.waitFor();
      await expect(status.locator('li[data-issue-path=name]').textContent()).resolves.toBe(
        line(locale, 'form_field_name', 'form_issue_required'),
      );
      const seen = await visibleText(status);
      expect(seen).toBe(
        `${translate(locale, 'error_validation_failed')} ${line(locale, 'form_field_name', 'form_issue_required')}`,
      );
      expect(seen).not.toContain('letters');
      // The server's words wait in the title for a bug report.
      await expect(status.getAttribute('title')).resolves.toContain('use 1–40 letters');
      if (locale === 'ko') expect(seen).toBe('입력한 값이 올바르지 않습니다. 이름: 비워 둘 수 없습니다');
      else {
        await page.goto(`${hal.url}/ops`);
        await switchLanguage(page, 'ko');
      }
    });
  }
});
