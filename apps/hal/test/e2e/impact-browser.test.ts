import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest, FakeServer, FakeStep } from '@hal-ai/providers/testing';
import { createFakeOpenAI } from '@hal-ai/providers/testing';
import { translate } from '@hal-ai/ui-panel/i18n';
import type { BrowserContext, Locator, Page } from 'playwright-core';
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
  reauthIfAsked,
  SCREENSHOT_DIR,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);

// Issue #16 points 2 and 6: the impact an operator judges before approving is readable and in their language —
// on a write proposal's card (Korean by default, English once they switch), in the high action's three-step dialog
// (the same impact, as a list, never raw JSON as the main text), and after a failed impact fetch (a retry, and no
// approve button offered meanwhile as if nothing changed). A real `hal serve`, a fake model, Debian's Chromium.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

function lastUserText(request: FakeRequest): string {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? [];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

function hasToolResult(request: FakeRequest): boolean {
  const messages = (request.body as { messages?: Array<{ role: string }> })?.messages ?? [];
  return messages[messages.length - 1]?.role === 'tool';
}

/** The model proposes what the operator's message names: a write approval, a high isolation, a write incident. */
function respond(ids: { pending: () => string; active: () => string }) {
  return (request: FakeRequest): FakeStep => {
    const text = lastUserText(request);
    if (hasToolResult(request)) return { text: 'Done.' };
    if (text.includes('APPROVE'))
      return { text: 'Approving.', toolCall: { name: 'hal_server_approve', input: { id: ids.pending() } } };
    if (text.includes('ISOLATE'))
      return {
        text: 'Isolating.',
        toolCall: { name: 'hal_server_isolate', input: { id: ids.active(), reason: 'disk failure' } },
      };
    if (text.includes('INCIDENT'))
      return {
        text: 'Opening one.',
        toolCall: {
          name: 'hal_incident_open',
          input: { key: 'disk.web-active', title: 'Disk errors', severity: 'major' },
        },
      };
    return { text: 'Fine.' };
  };
}

async function send(page: Page, text: string): Promise<void> {
  const input = page.locator('.hal-input');
  await input.fill(text);
  await input.press('Enter');
}

/** Switches the operator's language with the top bar's form; the panel follows the page's `<html lang>`. */
async function switchLanguage(page: Page, locale: 'ko' | 'en'): Promise<void> {
  await page.locator('form.language select').selectOption(locale);
  await Promise.all([
    page.waitForURL((url) => url.pathname.startsWith('/ops')),
    page.locator('form.language button').click(),
  ]);
  await expect(page.locator('html').getAttribute('lang')).resolves.toBe(locale);
  await panelReady(page);
}

/** The proposal card of one tool, waiting for it. */
async function cardOf(page: Page, tool: string): Promise<Locator> {
  const card = page.locator(`.hal-action[data-status=proposed]:has(.hal-action-tool:text-is("${tool}"))`);
  await card.waitFor({ timeout: 30_000 });
  return card;
}

/** What an impact block says as an operator reads it: the summary and each change line. */
async function impactSaid(block: Locator): Promise<{ summary: string; changes: string[] }> {
  await block.locator('.hal-impact-summary').waitFor({ timeout: 15_000 });
  return {
    summary: (await block.locator('.hal-impact-summary').textContent()) ?? '',
    changes: await block.locator('.hal-impact-changes li').allTextContents(),
  };
}

describe.skipIf(!hasChromium)('the impact an operator judges (Chromium, real hal serve)', () => {
  let hal: RunningHal;
  let model: FakeServer;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  let pendingId = '';
  let activeId = '';
  const temp = createTempDirs();

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    model = await createFakeOpenAI({
      models: [{ id: 'fake-impact' }],
      respond: respond({ pending: () => pendingId, active: () => activeId }),
    });
    hal = await startHal(cli, temp.make('hal-impact-data-'));
    call = await apiSession(hal.url, hal.password);
    const pending = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
      name: 'web-pending',
      role: 'web',
    });
    pendingId = pending.body.server.id;
    const active = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
      name: 'web-active',
      role: 'web',
    });
    activeId = active.body.server.id;
    await call('POST', `/ops/api/hal/servers/${activeId}/approve`);
    await createFakeConnection(call, { name: 'alpha', baseUrl: model.baseUrl, model: 'fake-impact' });
    ({ context, page } = await launchChromium(temp.make('hal-impact-chromium-')));
    await signIn(page, hal);
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    await model?.close();
    temp.remove();
  });

  it("shows a write proposal's impact in Korean, then in English once the operator switches", async () => {
    await send(page, '@alpha APPROVE web-pending please');
    const card = await cardOf(page, 'hal_server_approve');
    await expect(card.locator('.hal-risk').getAttribute('data-risk')).resolves.toBe('write');
    const korean = await impactSaid(card.locator('.hal-action-impact'));
    expect(korean.summary).toBe(translate('ko', 'impact_server_approve', { name: 'web-pending' }));
    expect(korean.changes).toEqual([
      `${translate('ko', 'impact_field_state')}: ${translate('ko', 'state_pending')} → ${translate('ko', 'state_active')}`,
    ]);
    // The facts are a labelled list in the same language; the raw JSON is one click away, folded.
    await expect(card.locator('.hal-impact-facts > dt').first().textContent()).resolves.toBe(
      translate('ko', 'impact_field_server'),
    );
    const raw = card.locator('details.hal-impact-raw');
    await expect(raw.evaluate((node) => (node as HTMLDetailsElement).open)).resolves.toBe(false);
    expect(JSON.parse((await raw.locator('pre').textContent()) ?? '')).toMatchObject({
      summaryCode: 'impact_server_approve',
      change: { state: { from: 'pending', to: 'active' } },
    });
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'impact-card-ko-1400.png') });

    await switchLanguage(page, 'en');
    const english = await impactSaid(
      (await cardOf(page, 'hal_server_approve')).locator('.hal-action-impact'),
    );
    expect(english).toEqual({
      summary: 'Approve server web-pending: it becomes active and may receive deployments',
      changes: ['state: pending → active'],
    });
    await switchLanguage(page, 'ko');
  });

  it("shows a high action's three-step dialog with the card's impact, as a list, not as JSON", async () => {
    await send(page, '@alpha ISOLATE web-active please');
    const card = await cardOf(page, 'hal_server_isolate');
    const onCard = await impactSaid(card.locator('.hal-action-impact'));
    await card.locator('button[data-act=approve]').click();
    await reauthIfAsked(page, hal.password);
    const steps = page.locator('dialog.hal-three-step');
    await steps.waitFor({ state: 'visible', timeout: 15_000 });
    const step = steps.locator('.hal-step');
    await step.locator('h3').waitFor();
    // What the operator reads on step 1 (closed <details> are not rendered): sentences and `field: from → to`,
    // no JSON; the card's summary among them.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point (folded JSON is not).
    const shown = await step.innerText();
    expect(shown).not.toMatch(/[{}"]/);
    expect(shown).toContain(onCard.summary);
    // The same impact block as the card, in Korean.
    const block = steps.locator('.hal-impact');
    await expect(impactSaid(block)).resolves.toEqual(onCard);
    expect(onCard.summary).toBe(translate('ko', 'impact_server_isolate', { name: 'web-active' }));
    await expect(block.locator('.hal-impact-facts dd[data-key=reason]').textContent()).resolves.toBe(
      'disk failure',
    );
    // The raw JSON is there, folded.
    const raw = block.locator('details.hal-impact-raw');
    await expect(raw.evaluate((node) => (node as HTMLDetailsElement).open)).resolves.toBe(false);
    await expect(raw.locator('pre').textContent()).resolves.toContain('"summaryCode"');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'impact-three-step-ko-1400.png') });
    await page.keyboard.press('Escape');
    await steps.waitFor({ state: 'detached' });
  });

  it('says when the impact could not be loaded, holds approve, and shows the impact after a retry', async () => {
    let failures = 0;
    const impactRoute = '**/ops/api/ai/actions/*/impact';
    await page.route(impactRoute, async (route) => {
      failures += 1;
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'unavailable', message: 'try again' } }),
      });
    });
    await send(page, '@alpha INCIDENT for web-active please');
    const card = await cardOf(page, 'hal_incident_open');
    const failed = card.locator('.hal-impact-failed[role=alert]');
    await failed.waitFor({ timeout: 15_000 });
    expect(failures).toBeGreaterThan(0);
    await expect(failed.textContent()).resolves.toContain(translate('ko', 'impact_ui_failed'));
    await expect(card.locator('.hal-impact-summary').count()).resolves.toBe(0);
    const approve = card.locator('button[data-act=approve]');
    await expect(approve.isDisabled()).resolves.toBe(true);
    await expect(card.locator('button[data-act=reject]').isDisabled()).resolves.toBe(false);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'impact-failed-ko-1400.png') });

    // HAL answers again: "load again" shows the impact and offers approve.
    await page.unroute(impactRoute);
    await failed.locator('button[data-impact-retry]').click();
    const recovered = await impactSaid(card.locator('.hal-action-impact'));
    expect(recovered.summary).toBe(
      translate('ko', 'impact_incident_open', {
        severity: translate('ko', 'state_major'),
        key: 'disk.web-active',
        title: 'Disk errors',
      }),
    );
    await expect(card.locator('.hal-impact-failed').count()).resolves.toBe(0);
    await expect(approve.isDisabled()).resolves.toBe(false);
  });
});
