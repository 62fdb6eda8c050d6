import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FakeRequest, FakeServer, FakeStep } from '@hal-ai/providers/testing';
import { createFakeOpenAI } from '@hal-ai/providers/testing';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  CHROMIUM_ARGS,
  ensureBuilt,
  panelReady,
  type RunningHal,
  reauthIfAsked,
  SCREENSHOT_DIR,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`[panel e2e] skipped: no Chromium at ${CHROMIUM} (CI installs it: apt-get install chromium)`);
}

/** Replies the models send: markdown-it's and DOMPurify's classic XSS payloads. */
const XSS_REPLY = [
  'XSS-START',
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=1</script>',
  '<svg onload="window.__pwned=1">',
  '[click](javascript:window.__pwned=1)',
  '[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)',
  '![img](javascript:window.__pwned=1)',
  '<a href="javascript:window.__pwned=1">raw</a>',
  '<details open ontoggle="window.__pwned=1">',
  '<iframe src="javascript:window.__pwned=1"></iframe>',
  'XSS-END',
].join('\n\n');

function lastMessage(request: FakeRequest): { role: string; text: string } {
  const messages = (
    (request.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? []
  ).slice();
  const last = messages[messages.length - 1];
  return {
    role: last?.role ?? '',
    text: typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? ''),
  };
}

function alphaRespond(serverId: () => string) {
  return (request: FakeRequest): FakeStep => {
    const messages =
      (request.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? [];
    const toolTexts = messages
      .filter((message) => message.role !== 'system')
      .map((message) =>
        typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
      );
    // After the approval HAL adds the real result (the isolated server) and calls the model again.
    if (toolTexts.some((text) => text.includes('disk failure') && text.includes('isolatedReason'))) {
      return { text: 'CONTINUATION-DONE: the server is **isolated**.', chunks: 3 };
    }
    if (toolTexts.some((text) => text.includes('awaiting operator approval'))) {
      return { text: 'Waiting for the operator to approve.' };
    }
    if (lastMessage(request).text.includes('ISOLATE')) {
      return {
        text: 'I propose isolating it.',
        toolCall: { name: 'hal_server_isolate', input: { id: serverId(), reason: 'disk failure' } },
      };
    }
    return {
      text: 'Hello operator, STREAM-MARK is fine. @beta please double-check.',
      chunks: 8,
      chunkDelayMs: 250,
    };
  };
}

function betaRespond(request: FakeRequest): FakeStep {
  const last = lastMessage(request);
  if (last.text.includes('XSS')) return { text: XSS_REPLY, chunks: 2 };
  return { text: 'RELAY-REPLY: beta checked, all good.' };
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

describe.skipIf(!hasChromium)('AI panel in Chromium against a real hal serve', () => {
  let hal: RunningHal;
  let alpha: FakeServer;
  let beta: FakeServer;
  let page: Page;
  const temp: string[] = [];
  const contexts: BrowserContext[] = [];
  const dialogsSeen: string[] = [];
  let serverId = '';
  const apiKey = () => randomBytes(18).toString('base64url');

  function tempDir(prefix: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    temp.push(dir);
    return dir;
  }

  async function newBrowser(): Promise<{ context: BrowserContext; page: Page }> {
    const created = await chromium.launchPersistentContext(tempDir('hal-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 860 },
    });
    contexts.push(created);
    const opened = created.pages()[0] ?? (await created.newPage());
    opened.on('dialog', (dialog) => {
      dialogsSeen.push(dialog.message());
      void dialog.dismiss();
    });
    return { context: created, page: opened };
  }

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    alpha = await createFakeOpenAI({ models: [{ id: 'fake-alpha' }], respond: alphaRespond(() => serverId) });
    beta = await createFakeOpenAI({ models: [{ id: 'fake-beta' }], respond: betaRespond });
    // A short re-auth window, so approving later meets `401 reauth_required` for real.
    hal = await startHal(cli, tempDir('hal-e2e-data-'), { HAL_REAUTH_WINDOW_S: '3' });
    // The server the model will propose to isolate, registered through the console API.
    const signIn = await fetch(`${hal.url}/ops/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: hal.password }),
    });
    const cookie = signIn.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const created = await fetch(`${hal.url}/ops/api/hal/servers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrfToken },
      body: JSON.stringify({ name: 'web-1', role: 'web' }),
    });
    const body = (await created.json()) as { server?: { id: string }; id?: string };
    serverId = body.server?.id ?? body.id ?? '';
    expect(serverId, JSON.stringify(body)).not.toBe('');
    ({ page } = await newBrowser());
  }, 600_000);

  afterAll(async () => {
    for (const opened of contexts) await opened.close().catch(() => undefined);
    await hal?.stop();
    await alpha?.close();
    await beta?.close();
    for (const dir of temp) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('logs in and creates two connections on /ops/ai', async () => {
    await signIn(page, hal);
    await page.goto(`${hal.url}/ops/ai`);
    await page.waitForSelector('[data-hal-connections][data-ready=true]');
    await expect(page.locator('.hal-callback-url').textContent()).resolves.toContain(
      '/ops/ai/oauth/callback',
    );
    for (const [name, fake, model] of [
      ['alpha', alpha, 'fake-alpha'],
      ['beta', beta, 'fake-beta'],
    ] as const) {
      const form = page.locator('form.hal-conn-form');
      await form.locator('select[name=provider]').selectOption('openai');
      await form.locator('input[name=name]').fill(name);
      await form.locator('input[name=apiKey]').fill(apiKey());
      await form.locator('input[name=baseUrl]').fill(fake.baseUrl);
      await form.locator('input[name=model]').fill(model);
      await form.locator('input[name=role]').fill(`${name} reviewer`);
      await form.locator('button[type=submit]').click();
      await reauthIfAsked(page, hal.password, 2000);
      const row = page.locator(`.hal-conn:has(h3:text-is("${name}"))`);
      await row.waitFor();
      await expect(row.locator('.hal-conn-status').getAttribute('data-status')).resolves.toBe('active');
      // The stored key is never echoed: a hint only.
      await expect(row.locator('.hal-conn-secret').textContent()).resolves.toMatch(/…|\.\.\.|\*/);
    }
    // Editing shows the hint as a placeholder; the stored key never comes back into the field.
    await page.locator('.hal-conn:has(h3:text-is("alpha")) button[data-act=edit]').click();
    const keyField = page.locator('form.hal-conn-form[data-mode=edit] input[name=apiKey]');
    await expect(keyField.inputValue()).resolves.toBe('');
    await expect(keyField.getAttribute('placeholder')).resolves.toMatch(/\S/);
    await expect(
      page.locator('form.hal-conn-form[data-mode=edit] select[name=model]').inputValue(),
    ).resolves.toBe('fake-alpha');
    await shot(page, '01-connections');
  }, 120_000);

  it('sends a unified message with an @mention, streams the reply, relays once', async () => {
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
    const titles = await page.locator('[role=tab] .hal-tab-title').allTextContents();
    expect(titles).toEqual(['통합', 'alpha', 'beta']);
    // Double-click renames in place: Enter saves, Esc cancels, empty goes back to the connection name.
    const alphaTab = () =>
      page.locator('[role=tab]:has(.hal-tab-title:text-is("alpha")), [role=tab]:has(.hal-rename)').first();
    await alphaTab().dblclick();
    await page.locator('.hal-rename').fill('알파 방');
    await page.locator('.hal-rename').press('Enter');
    await page.locator('[role=tab] .hal-tab-title:text-is("알파 방")').waitFor();
    await page.locator('[role=tab]:has(.hal-tab-title:text-is("알파 방"))').dblclick();
    await page.locator('.hal-rename').fill('ignored');
    await page.locator('.hal-rename').press('Escape');
    await page.locator('[role=tab] .hal-tab-title:text-is("알파 방")').waitFor();
    await page.locator('[role=tab]:has(.hal-tab-title:text-is("알파 방"))').dblclick();
    await page.locator('.hal-rename').fill('');
    await page.locator('.hal-rename').press('Enter');
    await page.locator('[role=tab] .hal-tab-title:text-is("alpha")').waitFor();
    // The fixed unified tab cannot be renamed.
    await page.locator('[role=tab][data-fixed=true]').dblclick();
    await expect(page.locator('.hal-rename').count()).resolves.toBe(0);
    await expect(page.locator('[role=tab][data-fixed=true]').getAttribute('aria-selected')).resolves.toBe(
      'true',
    );
    const input = page.locator('.hal-input');
    await input.click();
    await input.pressSequentially('@al');
    await page.locator('#hal-suggestions [role=option]:has-text("@alpha")').waitFor();
    await input.press('Enter');
    await input.pressSequentially('how is it going?');
    await expect(input.inputValue()).resolves.toBe('@alpha how is it going?');
    await input.press('Enter');
    await page.locator('.hal-role-user .hal-text:has-text("@alpha how is it going?")').waitFor();
    // The streamed text shows while the message is still streaming.
    await page.locator('.hal-status-streaming .hal-md').first().waitFor({ timeout: 30_000 });
    await shot(page, '02-streaming');
    const reply = page.locator('.hal-role-assistant.hal-status-complete:has-text("STREAM-MARK")');
    await reply.waitFor({ timeout: 30_000 });
    await expect(reply.locator('.hal-author').textContent()).resolves.toBe('alpha');
    const relayed = page.locator('.hal-relayed:has-text("RELAY-REPLY")');
    await relayed.waitFor({ timeout: 30_000 });
    await expect(relayed.locator('.hal-relay-label').textContent()).resolves.toBe('릴레이 답변');
    // No duplicates after streaming ended.
    await expect(page.locator('.hal-message:has-text("STREAM-MARK")').count()).resolves.toBe(1);
    await shot(page, '03-relay');
  }, 90_000);

  it('approves a high proposal through re-auth and three steps; the model continues', async () => {
    // Let the 3-second re-auth window of the login lapse.
    await page.waitForTimeout(3500);
    const input = page.locator('.hal-input');
    await input.fill('@alpha ISOLATE web-1 please');
    await input.press('Enter');
    const card = page.locator('.hal-action[data-status=proposed]');
    await card.waitFor({ timeout: 30_000 });
    await expect(card.locator('.hal-action-tool').textContent()).resolves.toBe('hal_server_isolate');
    await expect(card.locator('.hal-risk').getAttribute('data-risk')).resolves.toBe('high');
    await expect(card.locator('.hal-identifiers').textContent()).resolves.toContain(serverId);
    await shot(page, '04-proposal');
    await card.locator('button[data-act=approve]').click();
    const reauth = page.locator('dialog.hal-reauth');
    await reauth.waitFor({ state: 'visible' });
    await shot(page, '05-reauth');
    await reauth.locator('input[type=password]').fill(hal.password);
    await reauth.locator('button[type=submit]').click();
    const steps = page.locator('dialog.hal-three-step');
    await steps.waitFor({ state: 'visible' });
    await expect(steps.locator('.hal-impact').textContent()).resolves.toContain('web-1');
    await shot(page, '06-three-step-impact');
    await steps.locator('.hal-step-next').click();
    const retype = steps.locator('input.hal-retype');
    await expect(steps.locator('.hal-step-next').isDisabled()).resolves.toBe(true);
    await retype.first().fill(serverId);
    await steps.locator('.hal-step-next').click();
    await shot(page, '07-three-step-execute');
    await steps.locator('.hal-step-execute').click();
    // On a slow machine the short window may lapse during the three steps: the dialog opens again.
    await reauthIfAsked(page, hal.password, 1500);
    await page.locator(`.hal-action[data-status=executed]`).waitFor({ timeout: 30_000 });
    await page
      .locator('.hal-role-assistant:has-text("CONTINUATION-DONE")')
      .waitFor({ timeout: 30_000 })
      .catch(async (error) => {
        await shot(page, '08-executed-failed');
        const bodies = alpha.requests.map((request) =>
          JSON.stringify((request.body as { messages?: unknown })?.messages ?? null).slice(-600),
        );
        throw new Error(`${String(error)}\nalpha saw:\n${bodies.join('\n')}`);
      });
    await shot(page, '08-executed');
  }, 120_000);

  it('renders XSS payloads in model replies inert', async () => {
    const input = page.locator('.hal-input');
    await input.fill('@beta XSS please');
    await input.press('Enter');
    await page
      .locator('.hal-role-assistant.hal-status-complete:has-text("XSS-END")')
      .waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500);
    const report = await page.evaluate(() => {
      const elements = [...document.querySelectorAll('[data-hal-panel] *')];
      return {
        pwned: (window as unknown as { __pwned?: unknown }).__pwned,
        handlers: elements.flatMap((element) =>
          [...element.attributes]
            .filter((attribute) => /^on/i.test(attribute.name))
            .map((attribute) => attribute.name),
        ),
        javascriptUrls: elements.filter((element) =>
          ['href', 'src', 'action', 'formaction'].some((name) =>
            /^\s*(javascript|data):/i.test(element.getAttribute(name) ?? ''),
          ),
        ).length,
        scripts: document.querySelectorAll('[data-hal-panel] script, [data-hal-panel] iframe').length,
      };
    });
    expect(report).toEqual({ pwned: undefined, handlers: [], javascriptUrls: 0, scripts: 0 });
    expect(dialogsSeen).toEqual([]);
    await shot(page, '09-xss-inert');
  }, 90_000);

  it('says why a private room of an inactive connection cannot send', async () => {
    await page.goto(`${hal.url}/ops/ai`);
    await page.waitForSelector('[data-hal-connections][data-ready=true]');
    await page.locator('.hal-conn:has(h3:text-is("beta")) button[data-act=toggle]').click();
    await page.locator('.hal-conn:has(h3:text-is("beta")) .hal-conn-status[data-status=disabled]').waitFor();
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
    await page.locator('[role=tab]:has(.hal-tab-title:text-is("beta"))').click();
    await expect(
      page
        .locator('[role=tab]:has(.hal-tab-title:text-is("beta")) .hal-status-mark')
        .getAttribute('data-status'),
    ).resolves.toBe('disabled');
    await page.locator('.hal-composer-note.hal-blocked').waitFor();
    await expect(page.locator('.hal-composer-note').textContent()).resolves.toContain('활성 상태가 아니어서');
    await expect(page.locator('.hal-input').isDisabled()).resolves.toBe(true);
    await shot(page, '10-inactive-room');
    await page.locator('[role=tab][data-fixed=true]').click();
  }, 60_000);

  it('keeps the panel width and open state across a reload and in another browser', async () => {
    const handle = page.locator('.hal-resize');
    const box = await handle.boundingBox();
    expect(box).not.toBeNull();
    const y = (box?.y ?? 0) + 100;
    await page.mouse.move((box?.x ?? 0) + 4, y);
    await page.mouse.down();
    await page.mouse.move(1280 - 520, y, { steps: 5 });
    await page.mouse.up();
    const saved = page.waitForResponse(
      (response) => response.url().endsWith('/ops/api/ai/prefs') && response.request().method() === 'PUT',
    );
    await handle.press('ArrowLeft'); // +20 px, and a save
    await saved;
    const width = Number(await page.locator('[data-hal-panel]').getAttribute('data-width'));
    expect(width).toBeGreaterThan(500);
    await page.reload();
    await panelReady(page);
    await expect(page.locator('[data-hal-panel]').getAttribute('data-width')).resolves.toBe(String(width));
    const panelBox = await page.locator('[data-hal-panel]').boundingBox();
    expect(Math.abs((panelBox?.width ?? 0) - width)).toBeLessThan(4);

    const closed = page.waitForResponse(
      (response) => response.url().endsWith('/ops/api/ai/prefs') && response.request().method() === 'PUT',
    );
    await page.locator('.hal-toggle').click();
    await closed;
    await page.reload();
    await panelReady(page);
    await expect(page.locator('[data-hal-panel]').getAttribute('data-open')).resolves.toBe('false');
    await expect(page.locator('.hal-panel-body').isHidden()).resolves.toBe(true);
    await shot(page, '11-closed');

    const other = await newBrowser();
    await signIn(other.page, hal);
    await other.page.goto(`${hal.url}/ops`);
    await panelReady(other.page);
    await expect(other.page.locator('[data-hal-panel]').getAttribute('data-open')).resolves.toBe('false');
    await expect(other.page.locator('[data-hal-panel]').getAttribute('data-width')).resolves.toBe(
      String(width),
    );
    await other.context.close();
  }, 120_000);

  it('puts the panel below the content at full width at 1000px, covering no menu', async () => {
    await page.locator('.hal-toggle').click();
    await page.setViewportSize({ width: 1000, height: 860 });
    const panel = await page.locator('[data-hal-panel]').boundingBox();
    const content = await page.locator('main.content').boundingBox();
    const menu = await page.locator('nav.menu').boundingBox();
    expect(panel && content && menu).toBeTruthy();
    if (!panel || !content || !menu) return;
    expect(panel.y).toBeGreaterThanOrEqual(content.y + content.height - 1);
    expect(panel.x).toBeLessThan(2);
    expect(panel.width).toBeGreaterThan(960);
    expect(panel.y).toBeGreaterThanOrEqual(menu.y + menu.height);
    await page.locator('[data-hal-panel]').scrollIntoViewIfNeeded();
    await shot(page, '12-narrow');
  }, 60_000);
});
