import fs from 'node:fs';
import type { FakeServer } from '@hal-ai/providers/testing';
import { createFakeOpenAI } from '@hal-ai/providers/testing';
import type { Usage } from '@hal-ai/spec';
import { type Locale, translate } from '@hal-ai/ui-panel/i18n';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ApiCall,
  apiSession,
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  createFakeConnection,
  createTempDirs,
  ensureBuilt,
  launchChromium,
  panelReady,
  type RunningHal,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);

// Issue #16 point 2, "dates, numbers and durations formatted for the locale", in a real browser against a real
// `hal serve`: a page's date and duration and the panel's message time and token counts read in Korean by default
// and in English once the operator chooses it. Every expectation is computed here with `Intl` from the stored
// value (the message's createdAt and usage, the metrics' timestamp), never copied from the product's output.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

/** The reply's reported usage: counts of four and five digits, so the grouping separator must show. */
const USAGE = { inputTokens: 12_345, outputTokens: 1_024 } as const;

/** The date-and-time form the console writes (to the second, 24-hour clock), straight from `Intl`. */
function dateTimeIn(locale: Locale, iso: string): string {
  return new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
}

/** The usage footer an operator should read for a stored usage, with `Intl`'s grouping of each count. */
function usageIn(locale: Locale, usage: Usage): string {
  const number = new Intl.NumberFormat(locale);
  const parts = (
    [
      ['panel_usage_input', usage.inputTokens],
      ['panel_usage_output', usage.outputTokens],
      ['panel_usage_reasoning', usage.reasoningTokens],
      ['panel_usage_total', usage.totalTokens],
    ] as const
  )
    .filter(([, count]) => count !== undefined)
    .map(([key, count]) => translate(locale, key, { count: number.format(count as number) }));
  return `${translate(locale, 'panel_usage')}: ${parts.join(' · ')}`;
}

/**
 * A duration in the language's narrow units, largest first, one to three of them (`3일 4시간 5분`, `3d 4h 5m`):
 * the unit words come from `Intl` for this language, so Korean text does not match the English pattern.
 */
function durationPattern(locale: Locale): RegExp {
  const units = ['day', 'hour', 'minute', 'second'].map((unit) =>
    new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'narrow' })
      .format(7)
      .replace('7', '\\d[\\d,]*'),
  );
  const one = `(?:${units.join('|')})`;
  return new RegExp(`^${one}(?: ${one}){0,2}$`);
}

describe.skipIf(!hasChromium)('dates, numbers and durations in the operator’s language (Chromium)', () => {
  let hal: RunningHal;
  let fake: FakeServer;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  let roomId = '';
  const temp = createTempDirs();

  beforeAll(async () => {
    const cli = ensureBuilt();
    fake = await createFakeOpenAI({
      models: [{ id: 'fake-count' }],
      respond: () => ({ text: 'Counted.', usage: { ...USAGE } }),
    });
    hal = await startHal(cli, temp.make('hal-locale-data-'));
    call = await apiSession(hal.url, hal.password);
    await createFakeConnection(call, { name: 'counter', baseUrl: fake.baseUrl, model: 'fake-count' });
    const rooms = await call<{ rooms: Array<{ id: string; kind: string }> }>('GET', '/ops/api/ai/rooms');
    roomId = rooms.body.rooms.find((room) => room.kind === 'unified')?.id ?? '';
    expect(roomId).not.toBe('');
    ({ context, page } = await launchChromium(temp.make('hal-locale-chromium-')));
    await signIn(page, hal);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    await fake?.close();
    temp.remove();
  });

  /** The assistant's stored reply (createdAt and usage as HAL keeps them). */
  async function storedReply() {
    const answer = await call<{
      messages: Array<{ id: string; role: string; status: string; createdAt: string; usage: Usage | null }>;
    }>('GET', `/ops/api/ai/rooms/${roomId}/messages`);
    const reply = answer.body.messages.filter((m) => m.role === 'assistant' && m.status === 'complete').pop();
    if (!reply?.usage) throw new Error(`no complete reply with usage: ${JSON.stringify(answer.body)}`);
    return reply as typeof reply & { usage: Usage };
  }

  /** Checks the overview's metrics (a date and a duration) and the panel's reply in one language. */
  async function expectIn(locale: Locale, replyId: string): Promise<void> {
    await page.goto(`${hal.url}/ops`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe(locale);
    const metrics = page.locator('dl.metrics');
    const at = (await metrics.getAttribute('data-metrics-at')) ?? '';
    expect(at).not.toBe('');
    // The page is written by the server, in the server's time zone: the same zone as this process.
    await expect(metrics.locator('dd').last().textContent()).resolves.toBe(dateTimeIn(locale, at));
    await expect(metrics.locator('[data-metric=uptime]').textContent()).resolves.toMatch(
      durationPattern(locale),
    );

    await panelReady(page);
    const reply = page.locator(`.hal-message[data-message-id="${replyId}"]`);
    await reply.waitFor({ timeout: 30_000 });
    const stored = await storedReply();
    const time = reply.locator('time.hal-time');
    await expect(time.getAttribute('datetime')).resolves.toBe(stored.createdAt);
    // The panel writes in the browser's time zone: the expectation is computed there, from the stored instant.
    const expectedTime = await page.evaluate(
      ([lang, iso]) =>
        new Intl.DateTimeFormat(lang, {
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
        }).format(new Date(iso as string)),
      [locale, stored.createdAt],
    );
    await expect(time.textContent()).resolves.toBe(expectedTime);
    const usage = await reply.locator('.hal-usage').textContent();
    expect(usage).toBe(usageIn(locale, stored.usage));
    expect(usage).toContain(new Intl.NumberFormat(locale).format(USAGE.inputTokens));
  }

  it('writes a page’s date and duration and the panel’s time and token counts in Korean, then in English', async () => {
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
    const input = page.locator('.hal-input');
    await input.fill('@counter how many?');
    await input.press('Enter');
    await page
      .locator('.hal-role-assistant.hal-status-complete:has-text("Counted.")')
      .waitFor({ timeout: 30_000 });
    const reply = await storedReply();
    expect(reply.usage).toMatchObject(USAGE);

    await expectIn('ko', reply.id);
    // The two languages must really differ for this test to mean anything.
    expect(dateTimeIn('ko', reply.createdAt)).not.toBe(dateTimeIn('en', reply.createdAt));

    await page.locator('form.language select').selectOption('en');
    await Promise.all([page.waitForURL(`${hal.url}/ops`), page.locator('form.language button').click()]);
    await expectIn('en', reply.id);

    await page.locator('form.language select').selectOption('ko');
    await Promise.all([page.waitForURL(`${hal.url}/ops`), page.locator('form.language button').click()]);
  }, 120_000);
});
