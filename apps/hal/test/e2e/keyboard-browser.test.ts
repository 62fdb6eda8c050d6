import fs from 'node:fs';
import type { FakeRequest, FakeServer, FakeStep } from '@hal-ai/providers/testing';
import { createFakeOpenAI } from '@hal-ai/providers/testing';
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
  panelReady,
  type RunningHal,
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

/** The model: "ISOLATE <name>" proposes isolating that server; anything else is answered "Fine.". */
function respond(servers: Map<string, string>) {
  return (request: FakeRequest): FakeStep => {
    const messages = (request.body as { messages?: Array<{ role: string }> })?.messages ?? [];
    if (messages[messages.length - 1]?.role === 'tool') return { text: 'Proposed.' };
    const name = /ISOLATE (\S+)/.exec(lastUserText(request))?.[1];
    const id = name ? servers.get(name) : undefined;
    if (id)
      return {
        text: `I propose isolating ${name}.`,
        toolCall: { name: 'hal_server_isolate', input: { id, reason: 'disk failure' } },
      };
    return { text: 'Fine.' };
  };
}

/** Serious and critical axe-core findings in the open dialog and the panel behind it. */
const dialogViolations = (page: Page) => seriousAxeViolations(page, ['dialog[open]', '[data-hal-panel]']);

/** Types into the composer, reached from the top of the page by Tab, and sends with Enter. */
async function sendByKeyboard(page: Page, text: string): Promise<void> {
  await startFromTop(page);
  await pressUntil(page, '.hal-input');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** The room the panel shows: its id, the tab marked selected, the room the tabpanel is labelled by. */
function shownRoom(page: Page) {
  return page.evaluate(() => {
    const panel = document.querySelector<HTMLElement>('[data-hal-panel]');
    const selected = document.querySelector<HTMLElement>('[role=tab][aria-selected=true]');
    const labelledBy = document.querySelector('#hal-room')?.getAttribute('aria-labelledby') ?? null;
    return {
      active: panel?.dataset.activeRoom ?? null,
      selected: selected?.dataset.roomId ?? null,
      focused: (document.activeElement as HTMLElement | null)?.dataset.roomId ?? null,
      labelledBy: labelledBy ? (document.getElementById(labelledBy)?.dataset.roomId ?? labelledBy) : null,
      text: document.querySelector('#hal-room')?.textContent ?? '',
    };
  });
}

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

// Issue #16 point 7 in the panel, by keyboard alone (Tab, Shift+Tab, arrows, Enter, Escape, typing) in Chromium
// against a real `hal serve`: the room tabs, a proposal card's buttons and the composer are reached with Tab from
// the top of the page; the reject dialog, the new-debate dialog and each of the three steps of a high action keep
// the focus inside, pass axe-core, and give the focus back; after a reject or an execute the focus stays on the
// card that changed, never on the bare page.
describe.skipIf(!hasChromium)('the panel by keyboard (Chromium, real hal serve)', () => {
  let hal: RunningHal;
  let fake: FakeServer;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  const servers = new Map<string, string>();
  const temp = createTempDirs();

  beforeAll(async () => {
    const cli = ensureBuilt();
    fake = await createFakeOpenAI({ models: [{ id: 'fake-model' }], respond: respond(servers) });
    hal = await startHal(cli, temp.make('hal-keyboard-'));
    call = await apiSession(hal.url, hal.password);
    for (const name of ['web-1', 'web-2']) {
      const server = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
        name,
        role: 'web',
      });
      servers.set(name, server.body.server.id);
    }
    for (const name of ['alpha', 'beta', 'gamma'])
      await createFakeConnection(call, { name, baseUrl: fake.baseUrl, model: 'fake-model' });
    ({ context, page } = await launchChromium(temp.make('hal-keyboard-chromium-')));
    await signIn(page, hal);
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    await fake?.close();
    temp.remove();
  });

  it('reaches the room tabs with Tab from the top of the page; the arrow keys switch the room shown', async () => {
    await sendByKeyboard(page, '@alpha UNIFIED-MARK hello');
    await page.locator('.hal-status-complete:has-text("Fine.")').first().waitFor({ timeout: 30_000 });
    await startFromTop(page);
    await pressUntil(page, '[role=tab]');
    // One tab stop for the whole tab list (roving tabindex): the selected tab, the unified room.
    const first = await shownRoom(page);
    expect(first.focused).toBe(first.selected);
    expect(first.active).toBe(first.focused);
    expect(first.labelledBy).toBe(first.active);
    expect(first.text).toContain('UNIFIED-MARK');

    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await shownRoom(page)).active).not.toBe(first.active);
    const second = await shownRoom(page);
    expect(second).toMatchObject({
      selected: second.focused,
      active: second.focused,
      labelledBy: second.focused,
    });
    // The room shown is the direct room: the unified room's messages are gone from the tab panel.
    expect(second.text).not.toContain('UNIFIED-MARK');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toContain('alpha');

    await page.keyboard.press('End');
    await expect.poll(async () => (await shownRoom(page)).active).not.toBe(second.active);
    const last = await shownRoom(page);
    expect(last).toMatchObject({ selected: last.focused, active: last.focused, labelledBy: last.focused });

    await page.keyboard.press('Home');
    await expect.poll(async () => (await shownRoom(page)).active).toBe(first.active);
    await expect.poll(async () => (await shownRoom(page)).text).toContain('UNIFIED-MARK');
    // Tab leaves the tab list in one press: the next stop is outside it (the add-connection link).
    await page.keyboard.press('Tab');
    await expect(focusNow(page)).resolves.toMatchObject({ tag: 'a', className: 'hal-tab-add' });
  }, 120_000);

  it('rejects a proposal by keyboard: the card is reached by Tab, the dialog traps, passes axe and restores', async () => {
    await sendByKeyboard(page, '@alpha ISOLATE web-1');
    const card = page.locator('.hal-action[data-status=proposed]').last();
    await card.waitFor({ timeout: 30_000 });
    const actionId = (await card.getAttribute('data-action-id')) ?? '';
    // From the composer back into the message list: the newest card's buttons are the nearest stops.
    const presses = await pressUntil(page, `[data-action-id="${actionId}"] button[data-act=reject]`, {
      key: 'Shift+Tab',
      limit: 20,
    });
    expect(presses).toBeLessThan(20);

    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog[open].hal-reject-dialog');
    await dialog.waitFor();
    await expect(focusNow(page)).resolves.toMatchObject({
      tag: 'textarea',
      dialog: expect.stringContaining('hal-reject-dialog'),
    });
    await expectTrapped(page, 'hal-reject-dialog');
    expect(await dialogViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => focusNow(page)).toMatchObject({ dialog: null, action: actionId, act: 'reject' });
    await expect(card.getAttribute('data-status')).resolves.toBe('proposed');

    // For real: a reason, Tab to the dialog's reject button, Enter.
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.type('not this server');
    await pressUntil(page, 'dialog[open].hal-reject-dialog button[type=submit]', { limit: 5 });
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    const rejected = page.locator(`.hal-action[data-action-id="${actionId}"][data-status=rejected]`).first();
    await rejected.waitFor({ timeout: 30_000 });
    // The buttons are gone with the decision; the focus stays on the card, and stays there once it settled.
    await expect.poll(() => focusNow(page)).toMatchObject({ action: actionId, tag: 'section' });
    await page.waitForTimeout(500);
    await expect(focusNow(page)).resolves.toMatchObject({ action: actionId });
  }, 120_000);

  it('runs the three steps by keyboard: each step traps and passes axe; the focus stays on the executed card', async () => {
    await sendByKeyboard(page, '@alpha ISOLATE web-2');
    const card = page.locator('.hal-action[data-status=proposed]').last();
    await card.waitFor({ timeout: 30_000 });
    const actionId = (await card.getAttribute('data-action-id')) ?? '';
    await pressUntil(page, `[data-action-id="${actionId}"] button[data-act=approve]`, {
      key: 'Shift+Tab',
      limit: 20,
    });
    await page.keyboard.press('Enter');
    const steps = page.locator('dialog[open].hal-three-step');
    await steps.waitFor({ timeout: 15_000 });

    // Step 1, the impact: "next" has the focus.
    await expect(focusNow(page)).resolves.toMatchObject({
      className: expect.stringContaining('hal-step-next'),
    });
    await expectTrapped(page, 'hal-three-step');
    expect({ step: 1, violations: await dialogViolations(page) }).toEqual({ step: 1, violations: [] });
    await pressUntil(page, 'dialog[open] .hal-step-next', { limit: 5 });
    await page.keyboard.press('Enter');

    // Step 2, every identifier retyped: the first field has the focus, "next" waits for exact copies.
    await page.locator('dialog[open] input.hal-retype').first().waitFor();
    await expect(focusNow(page)).resolves.toMatchObject({
      tag: 'input',
      dialog: expect.stringContaining('hal-three-step'),
    });
    await expectTrapped(page, 'hal-three-step');
    expect({ step: 2, violations: await dialogViolations(page) }).toEqual({ step: 2, violations: [] });
    const identifiers = await page.locator('dialog[open] label:has(input.hal-retype) code').allTextContents();
    expect(identifiers.length).toBeGreaterThan(0);
    await expect(page.locator('dialog[open] .hal-step-next').isDisabled()).resolves.toBe(true);
    await pressUntil(page, 'dialog[open] input.hal-retype[data-index="0"]', { limit: 10 });
    for (const [index, identifier] of identifiers.entries()) {
      if (index > 0)
        await pressUntil(page, `dialog[open] input.hal-retype[data-index="${index}"]`, { limit: 5 });
      await page.keyboard.type(identifier);
    }
    await pressUntil(page, 'dialog[open] .hal-step-next', { limit: 5 });
    await page.keyboard.press('Enter');

    // Step 3, execute: the execute button has the focus.
    await page.locator('dialog[open] .hal-step-execute').waitFor();
    await expect(focusNow(page)).resolves.toMatchObject({
      className: expect.stringContaining('hal-step-execute'),
    });
    await expectTrapped(page, 'hal-three-step');
    expect({ step: 3, violations: await dialogViolations(page) }).toEqual({ step: 3, violations: [] });
    await pressUntil(page, 'dialog[open] .hal-step-execute', { limit: 5 });
    await page.keyboard.press('Enter');
    await steps.waitFor({ state: 'detached' });

    const executed = page.locator(`.hal-action[data-action-id="${actionId}"][data-status=executed]`).first();
    await executed.waitFor({ timeout: 30_000 });
    await expect(executed.locator('button[data-act]').count()).resolves.toBe(0);
    // The approve button that opened the dialogs is gone: the card it was on keeps the focus.
    await expect.poll(() => focusNow(page)).toMatchObject({ action: actionId, dialog: null });
    await page.waitForTimeout(500);
    await expect(focusNow(page)).resolves.toMatchObject({ action: actionId });
    const server = await call<{ server: { state: string } }>(
      'GET',
      `/ops/api/hal/servers/${servers.get('web-2')}`,
    );
    expect(server.body.server.state).toBe('isolated');
  }, 120_000);

  it('opens the new-debate dialog from the tab bar by keyboard: it traps, passes axe and restores the focus', async () => {
    await startFromTop(page);
    await pressUntil(page, '[role=tab]');
    await pressUntil(page, '.hal-debate-new-open', { limit: 3 });
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog[open].hal-debate-new');
    await dialog.waitFor();
    await expect(focusNow(page)).resolves.toMatchObject({
      tag: 'input',
      dialog: expect.stringContaining('hal-debate-new'),
    });
    await expectTrapped(page, 'hal-debate-new');
    expect(await dialogViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(() => focusNow(page))
      .toMatchObject({ dialog: null, className: expect.stringContaining('hal-debate-new-open') });

    // A refused cast (the moderator among the debaters) keeps the dialog open with the focus inside it.
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.type('Tabs or spaces?');
    await pressUntil(page, 'dialog[open] input[name=debaterIds]', { limit: 5 });
    await page.keyboard.press('Space');
    await pressUntil(page, 'dialog[open] button[type=submit]', { limit: 8 });
    await page.keyboard.press('Enter');
    await dialog.locator('.hal-dialog-error[data-error-code]').waitFor({ timeout: 15_000 });
    await expect(focusNow(page)).resolves.toMatchObject({
      dialog: expect.stringContaining('hal-debate-new'),
    });
    expect(await dialogViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(() => focusNow(page))
      .toMatchObject({ dialog: null, className: expect.stringContaining('hal-debate-new-open') });
  }, 120_000);
});
