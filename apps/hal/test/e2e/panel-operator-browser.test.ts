import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FakeRequest, FakeServer, FakeStep } from '@hal-ai/providers/testing';
import { createFakeOpenAI } from '@hal-ai/providers/testing';
import { translate } from '@hal-ai/ui-panel/i18n';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ApiCall,
  apiSession,
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  CHROMIUM_ARGS,
  ensureBuilt,
  panelReady,
  type RunningHal,
  SCREENSHOT_DIR,
  seriousAxeViolations,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);

function lastUserText(request: FakeRequest): string {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? [];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

function hasToolResult(request: FakeRequest): boolean {
  const messages = (request.body as { messages?: Array<{ role: string }> })?.messages ?? [];
  return messages[messages.length - 1]?.role === 'tool';
}

/** The model: a read tool call for "HEALTH", a proposal for "ISOLATE", a slow 60-chunk reply for "SLOW". */
function respond(serverId: () => string) {
  return (request: FakeRequest): FakeStep => {
    const text = lastUserText(request);
    if (hasToolResult(request)) return { text: 'Checked: all **healthy**.' };
    if (text.includes('HEALTH')) return { text: 'Looking.', toolCall: { name: 'hal_health', input: {} } };
    if (text.includes('ISOLATE'))
      return {
        text: 'I propose isolating it.',
        toolCall: { name: 'hal_server_isolate', input: { id: serverId(), reason: 'disk failure' } },
      };
    if (text.includes('SLOW')) {
      const paragraphs = Array.from({ length: 6 }, (_, index) => `Paragraph ${index} of the SLOW-REPLY.`);
      return { text: paragraphs.join('\n\n'), chunks: 60, chunkDelayMs: 60 };
    }
    return { text: 'Fine.' };
  };
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

async function send(page: Page, text: string): Promise<void> {
  const input = page.locator('.hal-input');
  await input.fill(text);
  await input.press('Enter');
}

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

describe.skipIf(!hasChromium)('the panel as an operator uses it (Chromium, real hal serve)', () => {
  let hal: RunningHal;
  let alpha: FakeServer;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  let serverId = '';
  let alphaId = '';
  const temp: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    temp.push(dir);
    return dir;
  };

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    alpha = await createFakeOpenAI({
      models: [{ id: 'fake-alpha' }, { id: 'fake-alpha-2' }],
      respond: respond(() => serverId),
    });
    hal = await startHal(cli, tempDir('hal-e2e-operator-'));
    call = await apiSession(hal.url, hal.password);
    const server = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
      name: 'web-1',
      role: 'web',
    });
    serverId = server.body.server.id;
    const created = await call<{ connection: { id: string; status: string } }>(
      'POST',
      '/ops/api/ai/connections',
      {
        provider: 'openai',
        name: 'alpha',
        auth: 'api_key',
        apiKey: randomBytes(18).toString('base64url'),
        baseUrl: alpha.baseUrl,
        model: 'fake-alpha',
        identity: { role: 'reviewer', traits: '', instructions: '' },
      },
    );
    expect(created.body.connection.status).toBe('active');
    alphaId = created.body.connection.id;
    context = await chromium.launchPersistentContext(tempDir('hal-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    await signIn(page, hal);
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    await alpha?.close();
    for (const dir of temp) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('streams a reply without touching earlier messages: opened details stay open, a selection survives', async () => {
    await send(page, '@alpha HEALTH please');
    const checked = page.locator('.hal-role-assistant.hal-status-complete:has-text("healthy")');
    await checked.waitFor({ timeout: 30_000 });
    const toolCall = page.locator('details.hal-tool-call').first();
    await toolCall.locator('summary').click();
    await expect(toolCall.evaluate((node) => (node as HTMLDetailsElement).open)).resolves.toBe(true);
    const earlier = await page.locator('.hal-message').count();
    await send(page, '@alpha SLOW please');
    const live = page.locator('.hal-status-streaming .hal-md-part');
    await live.first().waitFor({ timeout: 30_000 });
    // While it streams: mark the earlier nodes and the first completed paragraph, and select a word earlier on.
    const selected = await page.evaluate((count) => {
      const messages = [...document.querySelectorAll<HTMLElement>('.hal-message')].slice(0, count);
      for (const node of messages) (node as HTMLElement & { __mark?: boolean }).__mark = true;
      const part = document.querySelector('.hal-status-streaming .hal-md-part') as HTMLElement & {
        __mark?: boolean;
      };
      part.__mark = true;
      const strong = [...document.querySelectorAll('.hal-message .hal-md strong')].find(
        (node) => node.textContent === 'healthy',
      );
      if (!strong) return '';
      const range = document.createRange();
      range.selectNodeContents(strong);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      return selection?.toString() ?? '';
    }, earlier);
    expect(selected).toBe('healthy');
    await page.waitForFunction(
      () => document.querySelectorAll('.hal-status-streaming .hal-md-part').length >= 3,
      {
        timeout: 30_000,
      },
    );
    const during = await page.evaluate((count) => {
      const messages = [...document.querySelectorAll<HTMLElement>('.hal-message')].slice(0, count);
      return {
        marked: messages.every((node) => (node as HTMLElement & { __mark?: boolean }).__mark === true),
        open: (document.querySelector('details.hal-tool-call') as HTMLDetailsElement | null)?.open,
        selection: window.getSelection()?.toString(),
        firstPartKept:
          (document.querySelector('.hal-status-streaming .hal-md-part') as HTMLElement & { __mark?: boolean })
            ?.__mark === true,
      };
    }, earlier);
    expect(during).toEqual({ marked: true, open: true, selection: 'healthy', firstPartKept: true });
    await page
      .locator('.hal-role-assistant.hal-status-complete:has-text("Paragraph 5 of the SLOW-REPLY")')
      .waitFor({
        timeout: 30_000,
      });
    await expect(page.locator('.hal-message:has-text("SLOW-REPLY")').count()).resolves.toBe(1);
  }, 120_000);

  it('follows a streamed reply at the bottom of the list, and stays where the operator scrolled up to', async () => {
    /** How far the message list stands from its bottom, and whether the newest message shows in it. */
    const bottom = () =>
      page.evaluate(() => {
        const list = document.querySelector('.hal-messages') as HTMLElement;
        const newest = [...list.querySelectorAll('.hal-message')].pop() as HTMLElement;
        const box = list.getBoundingClientRect();
        const shown = newest.getBoundingClientRect();
        return {
          gap: Math.round(list.scrollHeight - list.scrollTop - list.clientHeight),
          newestShown: shown.bottom > box.top && shown.top < box.bottom,
          overflows: list.scrollHeight > list.clientHeight,
        };
      });
    await send(page, '@alpha SLOW once more');
    await page.waitForFunction(
      () => document.querySelectorAll('.hal-status-streaming .hal-md-part').length >= 3,
      { timeout: 30_000 },
    );
    const streaming = await bottom();
    expect(streaming.overflows).toBe(true);
    expect(streaming.newestShown).toBe(true);
    expect(streaming.gap).toBeLessThan(48);
    await page.locator('.hal-status-complete:has-text("SLOW-REPLY")').nth(1).waitFor({ timeout: 30_000 });
    // The finished reply replaces its streaming node and grows from its placeholder size a frame later
    // (content-visibility): the list still ends at its bottom once the layout settled, with the reply's last
    // paragraph in view. Measured after the frames have run, not polled: a poll can catch the moment before the
    // growth, when a list that lost its bottom still looks pinned to it.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          let frames = 12;
          const next = () => (frames-- > 0 ? requestAnimationFrame(next) : resolve());
          requestAnimationFrame(next);
        }),
    );
    const settled = await page.evaluate(() => {
      const list = document.querySelector('.hal-messages') as HTMLElement;
      const box = list.getBoundingClientRect();
      const last = [...list.querySelectorAll('.hal-status-complete .hal-md p')]
        .filter((node) => node.textContent?.includes('Paragraph 5 of the SLOW-REPLY'))
        .pop()
        ?.getBoundingClientRect();
      const gap = list.scrollHeight - list.scrollTop - list.clientHeight;
      return {
        gap: Math.round(gap),
        atBottom: gap < 2,
        lastParagraphShown: last !== undefined && last.bottom <= box.bottom + 1 && last.top >= box.top,
      };
    });
    expect(settled).toMatchObject({ atBottom: true, lastParagraphShown: true });
    // The operator scrolls up: a new reply does not pull the list down again.
    const list = page.locator('.hal-messages');
    await list.hover();
    await page.mouse.wheel(0, -400);
    await page.waitForFunction(() => {
      const element = document.querySelector('.hal-messages') as HTMLElement;
      return element.scrollHeight - element.scrollTop - element.clientHeight > 300;
    });
    const scrolledTop = await list.evaluate((element) => element.scrollTop);
    const before = await page.locator('.hal-message').count();
    // Written through the API (as from another tab): the operator's own send scrolls down on purpose.
    const rooms = await call<{ rooms: Array<{ id: string; kind: string }> }>('GET', '/ops/api/ai/rooms');
    const unified = rooms.body.rooms.find((room) => room.kind === 'unified');
    await call('POST', `/ops/api/ai/rooms/${unified?.id}/messages`, { text: '@alpha hello' });
    await page.waitForFunction(
      (count) => document.querySelectorAll('.hal-message').length >= count + 2,
      before,
    );
    await page.locator('.hal-status-complete:has-text("Fine.")').last().waitFor({ timeout: 30_000 });
    await expect(list.evaluate((element) => element.scrollTop)).resolves.toBe(scrolledTop);
    await expect(bottom()).resolves.toMatchObject({ newestShown: false });
  }, 120_000);

  it('keeps following a reply from elsewhere when the list gets shorter under it (the window shrinks)', async () => {
    // The browser moves the geometry by itself here: the window (or a phone's on-screen keyboard) takes height
    // from the list while a reply streams, so the bottom drops out of view with no input of the operator's. A
    // render-time geometry check then found the list "scrolled up" and stopped following: the reply streamed
    // below the fold. Only the operator scrolling up may stop the follow.
    await page.reload();
    await panelReady(page);
    await page.locator('.hal-status-complete:has-text("Fine.")').last().waitFor({ timeout: 30_000 });
    const before = await page.locator('.hal-message').count();
    // Written through the API (as from another tab): no send of the operator's own scrolls the list down.
    const rooms = await call<{ rooms: Array<{ id: string; kind: string }> }>('GET', '/ops/api/ai/rooms');
    const unified = rooms.body.rooms.find((room) => room.kind === 'unified');
    await call('POST', `/ops/api/ai/rooms/${unified?.id}/messages`, { text: '@alpha SLOW while it shrinks' });
    await page.waitForFunction(
      (count) =>
        document.querySelectorAll('.hal-message').length >= count + 2 &&
        document.querySelectorAll('.hal-status-streaming .hal-md-part').length >= 1,
      before,
      { timeout: 30_000 },
    );
    const list = page.locator('.hal-messages');
    const tall = await list.evaluate((element) => element.clientHeight);
    try {
      await page.setViewportSize({ width: 1400, height: 520 });
      await page.waitForFunction((height) => {
        const element = document.querySelector('.hal-messages') as HTMLElement;
        return element.clientHeight < height - 200;
      }, tall);
      // Later batches of the same reply arrive after the shrink: each render must bring the bottom back.
      await page.waitForFunction(
        () => document.querySelectorAll('.hal-status-streaming .hal-md-part').length >= 4,
        {
          timeout: 30_000,
        },
      );
      const streaming = await page.evaluate(() => {
        const element = document.querySelector('.hal-messages') as HTMLElement;
        const newest = [...element.querySelectorAll('.hal-message')].pop() as HTMLElement;
        const box = element.getBoundingClientRect();
        const shown = newest.getBoundingClientRect();
        return {
          newestShown: shown.bottom > box.top && shown.top < box.bottom,
          nearBottom: element.scrollHeight - element.scrollTop - element.clientHeight < 48,
        };
      });
      expect(streaming).toEqual({ newestShown: true, nearBottom: true });
      await page.locator('.hal-status-complete:has-text("SLOW-REPLY")').nth(2).waitFor({ timeout: 30_000 });
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  }, 120_000);

  it('shows a proposal card with readable arguments, the impact, raw JSON on a click, and live status', async () => {
    await send(page, '@alpha ISOLATE web-1 please');
    const card = page.locator('.hal-action[data-status=proposed]');
    await card.waitFor({ timeout: 30_000 });
    await expect(card.locator('.hal-action-args dd[data-key=reason]').textContent()).resolves.toBe(
      'disk failure',
    );
    await expect(card.locator('.hal-action-args dd[data-key=id]').textContent()).resolves.toBe(serverId);
    await expect(card.locator('.hal-impact-summary').textContent()).resolves.toContain('web-1');
    // In the operator's language (Korean by default): the state's word, not the stored value.
    await expect(card.locator('.hal-impact-changes li[data-field=state]').textContent()).resolves.toContain(
      translate('ko', 'state_isolated'),
    );
    const raw = card.locator('details.hal-action-raw');
    await expect(raw.evaluate((node) => (node as HTMLDetailsElement).open)).resolves.toBe(false);
    await raw.locator('summary').click();
    expect(JSON.parse((await raw.locator('pre').textContent()) ?? '')).toEqual({
      id: serverId,
      reason: 'disk failure',
    });
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'proposal-card-1400');
    await page.setViewportSize({ width: 390, height: 844 });
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'proposal-card-390');
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 90_000);

  it('traps focus in the approval dialog, restores it, passes axe, and updates the card live', async () => {
    const card = page.locator('.hal-action[data-status=proposed]');
    const approve = card.locator('button[data-act=approve]');
    await approve.focus();
    await page.keyboard.press('Enter');
    // The login opened the re-auth window, so the three steps come straight away.
    const steps = page.locator('dialog.hal-three-step');
    await steps.waitFor({ state: 'visible', timeout: 15_000 });
    for (let press = 0; press < 5; press += 1) {
      await page.keyboard.press('Tab');
      await expect(
        page.evaluate(() => Boolean(document.activeElement?.closest('dialog.hal-three-step'))),
      ).resolves.toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    await expect(
      page.evaluate(() => Boolean(document.activeElement?.closest('dialog.hal-three-step'))),
    ).resolves.toBe(true);
    // The open proposal dialog and the panel behind it (the console pages have their own check).
    const violations = await seriousAxeViolations(page, ['dialog[open]', '[data-hal-panel]']);
    expect(violations).toEqual([]);
    await page.keyboard.press('Escape');
    await steps.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.closest('.hal-action') !== null);
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-act'))).resolves.toBe(
      'approve',
    );
    // Approved elsewhere (the console API, three steps): this card follows live, with the result.
    const actionId = (await card.getAttribute('data-action-id')) ?? '';
    const first = await call<{ error: { confirmToken: string; identifiers: string[] } }>(
      'POST',
      `/ops/api/ai/actions/${actionId}/approve`,
      {},
    );
    expect(first.status).toBe(409);
    const done = await call<{ action: { status: string } }>(
      'POST',
      `/ops/api/ai/actions/${actionId}/approve`,
      {
        confirmToken: first.body.error.confirmToken,
        confirmImpact: true,
        confirmIdentifiers: first.body.error.identifiers,
        confirmExecute: true,
      },
    );
    expect(done.body.action.status).toBe('executed');
    const executed = page.locator(`.hal-action[data-action-id="${actionId}"][data-status=executed]`).first();
    await executed.waitFor({ timeout: 30_000 });
    await expect(executed.locator('button[data-act]').count()).resolves.toBe(0);
    await executed.locator('details.hal-action-result summary').click();
    await expect(executed.locator('.hal-action-result').textContent()).resolves.toContain('isolated');
  }, 120_000);

  it('moves between tabs by keyboard (arrows, Home, End)', async () => {
    const tabs = page.locator('[role=tab]');
    await tabs.first().focus();
    await page.keyboard.press('End');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('aria-selected'))).resolves.toBe(
      'true',
    );
    await expect(tabs.last().getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('Home');
    await expect(tabs.first().getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowRight');
    await expect(tabs.nth(1).getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect(tabs.first().getAttribute('aria-selected')).resolves.toBe('true');
  }, 60_000);

  it('picks the model of a direct room from the checked models, and shows a refusal', async () => {
    await page.locator('[role=tab]:has(.hal-tab-title:text-is("alpha"))').click();
    const picker = page.locator('.hal-room-bar select.hal-model-picker');
    await picker.waitFor();
    await expect(picker.locator('option').allTextContents()).resolves.toEqual(['fake-alpha', 'fake-alpha-2']);
    const patched = page.waitForResponse(
      (response) =>
        response.url().endsWith(`/connections/${alphaId}`) && response.request().method() === 'PATCH',
    );
    await picker.selectOption('fake-alpha-2');
    await patched;
    const listed = await call<{ connections: Array<{ id: string; model: string }> }>(
      'GET',
      '/ops/api/ai/connections',
    );
    expect(listed.body.connections.find((connection) => connection.id === alphaId)?.model).toBe(
      'fake-alpha-2',
    );
    await expect(page.locator('.hal-room-bar select.hal-model-picker').inputValue()).resolves.toBe(
      'fake-alpha-2',
    );
    // A model the check did not find is refused by HAL; the bar says why and keeps the model in use.
    await page.locator('.hal-room-bar select.hal-model-picker').evaluate((select) => {
      const option = document.createElement('option');
      option.value = 'ghost-model';
      option.textContent = 'ghost-model';
      select.append(option);
    });
    await page.locator('.hal-room-bar select.hal-model-picker').selectOption('ghost-model');
    const note = page.locator('.hal-room-bar .hal-status-note[data-error-code=model_unavailable]');
    await note.waitFor({ timeout: 15_000 });
    await expect(page.locator('.hal-room-bar select.hal-model-picker').inputValue()).resolves.toBe(
      'fake-alpha-2',
    );
  }, 60_000);

  it('offers "log in / re-authenticate" on an OAuth connection that needs it, opening the popup', async () => {
    const created = await call<{ connection: { id: string; status: string } }>(
      'POST',
      '/ops/api/ai/connections',
      {
        provider: 'other',
        name: 'gateway',
        auth: 'oauth',
        baseUrl: alpha.baseUrl,
        model: 'fake-alpha',
        oauth: {
          preset: 'custom',
          authorizeUrl: `${alpha.url}/authorize`,
          tokenUrl: `${alpha.url}/token`,
          clientId: 'hal-e2e',
          scopes: ['models'],
        },
      },
    );
    expect(created.body.connection.status).toBe('reauth_required');
    await page.reload();
    await panelReady(page);
    await page.locator('[role=tab]:has(.hal-tab-title:text-is("gateway"))').click();
    const button = page.locator('.hal-room-bar button.hal-login[data-auth=oauth]');
    await button.waitFor();
    const popup = context.waitForEvent('page');
    await button.click();
    const opened = await popup;
    expect(opened.url()).toMatch(new RegExp(`^${alpha.url}/authorize\\?`));
    expect(new URL(opened.url()).searchParams.get('code_challenge_method')).toBe('S256');
    await opened.close();
  }, 60_000);
});
