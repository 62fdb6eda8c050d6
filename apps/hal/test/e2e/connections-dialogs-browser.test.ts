import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLoginCli, installFakeLoginCli } from '../../src/ai/shell/shell-fake-cli.test-support.js';
import {
  type ApiCall,
  apiSession,
  CHROMIUM,
  createFakeConnection,
  createTempDirs,
  ensureBuilt,
  launchChromium,
  type RunningHal,
  SCREENSHOT_DIR,
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

/** Where the keyboard focus is: the open dialog it is in (its class), and the button's card and act. */
function focusNow(page: Page) {
  return page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    return {
      dialog: active?.closest('dialog[open]')?.className ?? null,
      connection: active?.closest<HTMLElement>('[data-connection-id]')?.dataset.connectionId ?? null,
      cli: active?.closest<HTMLElement>('[data-cli]')?.dataset.cli ?? null,
      act: active?.dataset.act ?? null,
      tag: active?.tagName.toLowerCase() ?? null,
    };
  });
}

/**
 * Tab and Shift+Tab more times than the dialog has controls: the focus never leaves it (the page behind a
 * modal dialog is inert, so an untrapped Tab lands on the document itself, outside the dialog).
 */
async function expectTrapped(page: Page, dialogClass: string): Promise<void> {
  const controls = await page
    .locator(`dialog[open].${dialogClass}`)
    .evaluate(
      (dialog) =>
        dialog.querySelectorAll('a[href], button:not([disabled]), input:not([disabled]), textarea, select')
          .length,
    );
  expect(controls).toBeGreaterThan(1);
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let press = 0; press < controls + 2; press += 1) {
      await page.keyboard.press(key);
      const where = await focusNow(page);
      expect({ key, press, dialog: where.dialog }).toEqual({
        key,
        press,
        dialog: expect.stringContaining(dialogClass),
      });
    }
  }
}

/** Opens a dialog from a button as a keyboard user does: focus, then Enter. */
async function pressButton(page: Page, selector: string): Promise<void> {
  await page.locator(selector).focus();
  await page.keyboard.press('Enter');
}

// Issue #16 point 7 on the connections screen (`/ops/ai`), in Chromium against a real `hal serve`: every dialog
// of the screen (replace the API key, replace the client secret, confirm a delete, the re-authentication it
// leads to, the login terminal from a CLI card and from a connection card) keeps Tab and Shift+Tab inside,
// closes on Escape and gives the focus back to the button that opened it; axe-core finds no serious or
// critical violation on the screen with every kind of card (1400 and 390 px) nor in any open dialog; and at
// 1000 px no card overflows its box or breaks a word (the overview too).
describe.skipIf(!hasChromium)('the connections screen dialogs and cards in Chromium', () => {
  let hal: RunningHal;
  let shortWindowHal: RunningHal;
  let context: BrowserContext;
  let page: Page;
  let keyed: FakeServer;
  let claude: FakeLoginCli;
  let call: ApiCall;
  const ids: Record<string, string> = {};
  const temp = createTempDirs();

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    claude = installFakeLoginCli(temp.make('hal-dialogs-bin-'), 'claude', {
      code: randomBytes(6).toString('hex'),
    });
    hal = await startHal(cli, temp.make('hal-dialogs-data-'), { CLAUDE_BIN: claude.file, LANG: 'C.UTF-8' });
    shortWindowHal = await startHal(cli, temp.make('hal-dialogs-short-'), {
      CLAUDE_BIN: claude.file,
      HAL_REAUTH_WINDOW_S: '1',
    });
    keyed = await createFakeOpenAI({ models: [{ id: 'gpt-small' }] });
    call = await apiSession(hal.url, hal.password);
    ids.keyed = await createFakeConnection(call, {
      name: 'keyed',
      baseUrl: keyed.baseUrl,
      model: 'gpt-small',
    });
    // An operator-supplied OAuth client (with its secret), not logged in yet: `reauth_required`.
    const oauth = await call<{ connection: { id: string; status: string } }>(
      'POST',
      '/ops/api/ai/connections',
      {
        provider: 'other',
        name: 'gateway',
        auth: 'oauth',
        baseUrl: keyed.baseUrl,
        model: 'gpt-small',
        oauth: {
          preset: 'custom',
          authorizeUrl: `${keyed.url}/authorize`,
          tokenUrl: `${keyed.url}/token`,
          clientId: 'hal-dialogs',
          clientSecret: secret(),
          scopes: ['models.read'],
        },
      },
    );
    expect(oauth.body.connection.status).toBe('reauth_required');
    ids.gateway = oauth.body.connection.id;
    // A local CLI that is not logged in: its card has the log-in button.
    const local = await call<{ connection: { id: string } }>('POST', '/ops/api/ai/connections', {
      provider: 'local-cli',
      name: 'claude-cli',
      auth: 'cli',
      cli: { tool: 'claude' },
    });
    ids.local = local.body.connection.id;
    ({ context, page } = await launchChromium(temp.make('hal-dialogs-chromium-')));
    await signIn(page, hal);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await Promise.all([hal?.stop(), shortWindowHal?.stop(), keyed?.close()]);
    temp.remove();
  });

  it('passes axe-core with every kind of connection card at 1400 and 390 px', async () => {
    await openScreen(page, hal);
    const statuses = await page
      .locator('.hal-conn .hal-conn-status')
      .evaluateAll((marks) => marks.map((mark) => (mark as HTMLElement).dataset.status));
    expect(statuses).toEqual(expect.arrayContaining(['active', 'reauth_required']));
    await expect(
      page.locator(`#connection-${ids.gateway} button[data-act=replace-client-secret]`).count(),
    ).resolves.toBe(1);
    await expect(page.locator('.hal-cli-card[data-cli=claude][data-found=true]').count()).resolves.toBe(1);
    for (const width of [1400, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect({ width, violations: await seriousAxeViolations(page) }).toEqual({ width, violations: [] });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 90_000);

  it('keeps the focus in the replace-secret dialogs, closes them on Escape and restores the focus', async () => {
    await openScreen(page, hal);
    for (const [id, act] of [
      [ids.keyed, 'replace-key'],
      [ids.gateway, 'replace-client-secret'],
    ] as const) {
      await pressButton(page, `#connection-${id} button[data-act=${act}]`);
      await page.locator('dialog[open].hal-secret-dialog').waitFor();
      await expect(focusNow(page)).resolves.toMatchObject({
        dialog: expect.stringContaining('hal-secret-dialog'),
        tag: 'input',
      });
      await expectTrapped(page, 'hal-secret-dialog');
      expect({ act, violations: await seriousAxeViolations(page, ['dialog[open]']) }).toEqual({
        act,
        violations: [],
      });
      await page.keyboard.press('Escape');
      await page.locator('dialog.hal-secret-dialog').waitFor({ state: 'detached' });
      await expect.poll(() => focusNow(page)).toMatchObject({ dialog: null, connection: id, act });
    }
  }, 90_000);

  it('keeps the focus in the login terminal opened from a CLI card or a connection card, and restores it', async () => {
    await openScreen(page, hal);
    for (const opener of [
      {
        selector: '.hal-cli-card[data-cli=claude] button[data-act=cli-login]',
        cli: 'claude',
        act: 'cli-login',
      },
      { selector: `#connection-${ids.local} button[data-act=login]`, connection: ids.local, act: 'login' },
    ]) {
      await pressButton(page, opener.selector);
      const terminal = page.locator('dialog[open].hal-terminal[data-shell-id]');
      await terminal.waitFor({ timeout: 30_000 });
      // Tab inside the terminal itself belongs to the program: the trap is tried from the dialog's buttons.
      await terminal.locator('button[data-act=close]').focus();
      await expectTrapped(page, 'hal-terminal');
      expect({ opener: opener.act, violations: await seriousAxeViolations(page, ['dialog[open]']) }).toEqual({
        opener: opener.act,
        violations: [],
      });
      await terminal.locator('button[data-act=close]').focus();
      await page.keyboard.press('Escape');
      await page.locator('dialog.hal-terminal').waitFor({ state: 'detached' });
      // The screen reads the CLIs and connections again once the session ended; the focus stays put.
      await expect
        .poll(() => focusNow(page))
        .toMatchObject({
          dialog: null,
          act: opener.act,
          connection: opener.connection ?? null,
          cli: opener.cli ?? null,
        });
      await page.waitForTimeout(500);
      await expect(focusNow(page)).resolves.toMatchObject({ act: opener.act });
    }
  }, 120_000);

  it('keeps the focus in the delete confirmation and the re-authentication after it, and restores it', async () => {
    const shortCall = await apiSession(shortWindowHal.url, shortWindowHal.password);
    const doomed = await shortCall<{ connection: { id: string } }>('POST', '/ops/api/ai/connections', {
      provider: 'local-cli',
      name: 'doomed',
      auth: 'cli',
      cli: { tool: 'claude' },
    });
    const id = doomed.body.connection.id;
    expect(id).toBeTruthy();
    await signIn(page, shortWindowHal);
    await openScreen(page, shortWindowHal);
    // The one-second re-authentication window of the sign-in is over by now.
    await page.waitForTimeout(1500);
    const deleteButton = `#connection-${id} button[data-act=delete]`;

    // The confirmation: cancel has the focus first; Escape cancels and nothing is deleted.
    await pressButton(page, deleteButton);
    await page.locator('dialog[open].hal-confirm-dialog').waitFor();
    await expect(focusNow(page)).resolves.toMatchObject({
      dialog: expect.stringContaining('hal-confirm-dialog'),
    });
    await expectTrapped(page, 'hal-confirm-dialog');
    expect(await seriousAxeViolations(page, ['dialog[open]'])).toEqual([]);
    await page.keyboard.press('Escape');
    await page.locator('dialog.hal-confirm-dialog').waitFor({ state: 'detached' });
    await expect.poll(() => focusNow(page)).toMatchObject({ dialog: null, connection: id, act: 'delete' });

    // Confirmed by keyboard: the re-authentication dialog follows; Escape there cancels the delete.
    await pressButton(page, deleteButton);
    await page.locator('dialog[open].hal-confirm-dialog button.hal-danger').focus();
    await page.keyboard.press('Enter');
    await page.locator('dialog[open].hal-reauth').waitFor();
    await expectTrapped(page, 'hal-reauth');
    expect(await seriousAxeViolations(page, ['dialog[open]'])).toEqual([]);
    await page.keyboard.press('Escape');
    await page.locator('dialog.hal-reauth').waitFor({ state: 'detached' });
    await expect.poll(() => focusNow(page)).toMatchObject({ dialog: null, connection: id, act: 'delete' });
    await expect(page.locator(`#connection-${id}`).count()).resolves.toBe(1);

    // Done for real: the card is gone, and the focus lands on the list it was in, not on the bare page.
    await pressButton(page, deleteButton);
    await page.locator('dialog[open].hal-confirm-dialog button.hal-danger').focus();
    await page.keyboard.press('Enter');
    const reauth = page.locator('dialog[open].hal-reauth');
    await reauth.waitFor();
    await reauth.locator('input[type=password]').fill(shortWindowHal.password);
    await page.keyboard.press('Enter');
    await page.locator(`#connection-${id}`).waitFor({ state: 'detached', timeout: 30_000 });
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName))
      .toBe('hal-conn-list-title');
  }, 120_000);

  it('keeps every card whole at 1000 px on the overview and /ops/ai, and saves screenshots', async () => {
    await signIn(page, hal);
    await page.setViewportSize({ width: 1000, height: 900 });
    for (const [route, name, cards] of [
      ['/ops', 'overview', 'main .card'],
      ['/ops/ai', 'connections', '.hal-conn, .hal-cli-card, .hal-conn-form'],
    ] as const) {
      if (route === '/ops/ai') await openScreen(page, hal);
      else await page.goto(`${hal.url}${route}`);
      const found = await page.locator(cards).count();
      expect(found).toBeGreaterThan(2);
      const problems = await page.locator(cards).evaluateAll((boxes) => {
        const found: string[] = [];
        const name = (element: Element) =>
          `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${[...element.classList].join('.')}`;
        for (const box of boxes) {
          const outer = box.getBoundingClientRect();
          if (box.scrollWidth > box.clientWidth + 1) found.push(`${name(box)} scrolls sideways`);
          for (const inner of box.querySelectorAll('*')) {
            const rect = inner.getBoundingClientRect();
            if (rect.width === 0 || getComputedStyle(inner).position === 'fixed') continue;
            if (rect.right > outer.right + 1 || rect.left < outer.left - 1)
              found.push(`${name(inner)} sticks out of ${name(box)}`);
          }
          // A word cut in two ("ne ver") is laid out on two lines: its range has rects at two heights.
          const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent ?? '';
            for (const match of text.matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(node, match.index);
              range.setEnd(node, match.index + match[0].length);
              const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
              if (tops.size > 1)
                found.push(`"${match[0]}" is broken in ${name(node.parentElement as Element)}`);
            }
          }
        }
        return found;
      });
      expect({ route, problems }).toEqual({ route, problems: [] });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-1000.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 90_000);
});
