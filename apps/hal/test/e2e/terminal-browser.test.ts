import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeLoginCli, installFakeLoginCli } from '../../src/ai/shell/shell-fake-cli.test-support.js';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  CHROMIUM_ARGS,
  ensureBuilt,
  type RunningHal,
  SCREENSHOT_DIR,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);

/** What one describe's browser tests share: a real `hal serve` with a fake `claude`, and one Chromium page. */
interface TerminalBrowser {
  hal: RunningHal;
  context: BrowserContext;
  page: Page;
  claude: FakeLoginCli;
}

/** Starts HAL with a fake `claude` login CLI and Chromium before the describe's tests, and ends both after. */
function useTerminalBrowser(width: number): TerminalBrowser {
  const state = {} as TerminalBrowser;
  const temp: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    temp.push(dir);
    return dir;
  };
  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    state.claude = installFakeLoginCli(tempDir('hal-term-bin-'), 'claude', {
      code: randomBytes(6).toString('hex'),
    });
    state.hal = await startHal(cli, tempDir('hal-term-data-'), {
      CLAUDE_BIN: state.claude.file,
      LANG: 'C.UTF-8',
    });
    state.context = await chromium.launchPersistentContext(tempDir('hal-term-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width, height: 900 },
    });
    await state.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: state.hal.url });
    state.page = state.context.pages()[0] ?? (await state.context.newPage());
  }, 600_000);
  afterAll(async () => {
    await state.context?.close().catch(() => undefined);
    await state.hal?.stop();
    for (const dir of temp) fs.rmSync(dir, { recursive: true, force: true });
  });
  return state;
}

/** Signs in as the first operator through the login page. */
async function signIn(s: TerminalBrowser): Promise<void> {
  await s.page.goto(`${s.hal.url}/ops/login`);
  await s.page.fill('input[name=username]', 'admin');
  await s.page.fill('input[name=password]', s.hal.password);
  await Promise.all([
    s.page.waitForURL((target) => !target.pathname.startsWith('/ops/login')),
    s.page.press('input[name=password]', 'Enter'),
  ]);
}

// The loop of SPEC §8 in a real browser against a real `hal serve`: a local CLI connection whose check says
// cli_not_logged_in opens the login terminal by itself; the fake `claude` (found through CLAUDE_BIN) prints a
// login URL longer than a terminal row; the operator copies it with Ctrl+C on a selection, types the code in
// the line input, the CLI exits 0, HAL checks the connection again and the screen shows it active.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

describe.skipIf(!hasChromium)('login terminal in Chromium', () => {
  const s = useTerminalBrowser(1280);

  it('opens on cli_not_logged_in, finds the wrapped URL whole, copies it, logs in and shows the connection active', async () => {
    await signIn(s);
    await s.page.goto(`${s.hal.url}/ops/ai`);
    await s.page.waitForSelector('[data-hal-connections][data-ready=true]');

    const form = s.page.locator('form.hal-conn-form');
    await form.locator('select[name=provider]').selectOption('local-cli');
    await form.locator('input[name=name]').fill('claude-cli');
    await form.locator('select[name=auth]').selectOption('cli');
    await form.locator('select[name=cliTool]').selectOption('claude');
    await form.locator('button[type=submit]').click();

    // The check said cli_not_logged_in: the terminal opened by itself on `claude auth login`.
    const dialog = s.page.locator('dialog.hal-terminal[data-shell-id]');
    await dialog.waitFor({ timeout: 30_000 });
    const row = s.page.locator('.hal-conn:has(h3:text-is("claude-cli"))');
    await expect(row.locator('.hal-conn-status').getAttribute('data-status')).resolves.toBe(
      'reauth_required',
    );

    // The URL is longer than a row, so the terminal wrapped it; the list still has it whole.
    const listed = dialog.locator(`.hal-terminal-urls li[data-url="${s.claude.url}"]`);
    await listed.waitFor({ timeout: 30_000 });
    await expect(listed.locator('a').getAttribute('rel')).resolves.toContain('noopener');
    await expect(listed.locator('a').getAttribute('target')).resolves.toBe('_blank');
    const columns = Number(s.claude.calls().at(-1)?.env.COLUMNS);
    expect(columns).toBeGreaterThanOrEqual(20);
    expect(s.claude.url.length).toBeGreaterThan(columns);

    // Select the URL across its rows with the mouse, then Ctrl+C copies it (and sends no ^C).
    const rows = dialog.locator('.xterm-rows > div');
    const texts = await rows.allTextContents();
    const first = texts.findIndex((text) => text.startsWith('https://'));
    expect(first).toBeGreaterThanOrEqual(0);
    const rowCount = Math.ceil(s.claude.url.length / columns);
    const start = await rows.nth(first).boundingBox();
    const end = await rows.nth(first + rowCount - 1).boundingBox();
    if (!start || !end) throw new Error('terminal rows are not laid out');
    const cell = start.width / columns;
    const lastColumn = s.claude.url.length - (rowCount - 1) * columns;
    await s.page.mouse.move(start.x + 1, start.y + start.height / 2);
    await s.page.mouse.down();
    await s.page.mouse.move(end.x + cell * lastColumn - 1, end.y + end.height / 2, { steps: 8 });
    await s.page.mouse.up();
    await s.page.keyboard.press('Control+c');
    await expect
      .poll(() => s.page.evaluate(() => navigator.clipboard.readText()), { timeout: 10_000 })
      .toBe(s.claude.url);
    await expect(dialog.locator('.hal-terminal-status').getAttribute('data-status')).resolves.toBe('running');
    await s.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'terminal-01-login.png') });

    // The code goes in through the line input; the CLI exits 0 and HAL checks the connection again.
    await dialog.locator('input[name=line]').fill(s.claude.code);
    await dialog.locator('input[name=line]').press('Enter');
    await s.page.waitForSelector('dialog.hal-terminal[data-exit-code="0"]', { timeout: 30_000 });
    await s.page.waitForSelector('dialog.hal-terminal[data-connection-status=active]', { timeout: 30_000 });
    await expect
      .poll(() => row.locator('.hal-conn-status').getAttribute('data-status'), { timeout: 15_000 })
      .toBe('active');
    await s.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'terminal-02-done.png') });

    // Closing the dialog leaves no session behind.
    await dialog.locator('button[data-act=close]').click();
    await dialog.waitFor({ state: 'detached' });
    const open = await s.page.evaluate(
      async () => (await (await fetch('/ops/api/ai/shell')).json()).shells.length,
    );
    expect(open).toBe(0);
  }, 180_000);
});

// The same loop from the panel on every console page: a local CLI connection that needs a login shows a
// "log in (terminal)" button in its room; the terminal opens there, and the re-check after the CLI exits updates
// the room without a reload. The panel's "read links" switch is the operator preference of SPEC §10.
describe.skipIf(!hasChromium)('login terminal and link reading from the panel', () => {
  const s = useTerminalBrowser(1400);

  it('logs a CLI in from its room in the panel and keeps the link-reading preference', async () => {
    await signIn(s);
    const created = await s.page.evaluate(async () => {
      const { csrfToken } = await (await fetch('/ops/api/session')).json();
      const response = await fetch('/ops/api/ai/connections', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify({
          provider: 'local-cli',
          name: 'claude-cli',
          auth: 'cli',
          cli: { tool: 'claude' },
        }),
      });
      return (await response.json()).connection as { id: string; status: string };
    });
    expect(created.status).toBe('reauth_required');

    await s.page.goto(`${s.hal.url}/ops`);
    await s.page.waitForSelector('.hal-panel[data-ready=true]');
    await s.page.locator('.hal-tab:has-text("claude-cli")').click();
    const login = s.page.locator('.hal-room-bar button.hal-login');
    await login.waitFor({ timeout: 15_000 });
    await login.click();
    const dialog = s.page.locator('dialog.hal-terminal[data-shell-id]');
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.locator(`.hal-terminal-urls li[data-url="${s.claude.url}"]`).waitFor({ timeout: 30_000 });
    await dialog.locator('input[name=line]').fill(s.claude.code);
    await dialog.locator('input[name=line]').press('Enter');
    await s.page.waitForSelector('dialog.hal-terminal[data-connection-status=active]', { timeout: 30_000 });
    await dialog.locator('button[data-act=close]').click();
    await dialog.waitFor({ state: 'detached' });
    // The room bar follows the re-check: no login button, and the composer is open again.
    await login.waitFor({ state: 'detached', timeout: 15_000 });
    await expect(s.page.locator('.hal-input').isDisabled()).resolves.toBe(false);

    const toggle = s.page.locator('input.hal-web-toggle');
    await expect(toggle.isChecked()).resolves.toBe(true);
    await toggle.uncheck();
    await expect
      .poll(
        () =>
          s.page.evaluate(async () => (await (await fetch('/ops/api/ai/prefs')).json()).prefs.webAutoFetch),
        { timeout: 10_000 },
      )
      .toBe(false);
    await s.page.reload();
    await s.page.waitForSelector('.hal-panel[data-ready=true]');
    await expect(s.page.locator('input.hal-web-toggle').isChecked()).resolves.toBe(false);
  }, 180_000);
});
