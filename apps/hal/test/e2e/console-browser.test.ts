import fs from 'node:fs';
import path from 'node:path';
import { translate } from '@hal-ai/ui-panel/i18n';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeArtifact } from '../../src/domain/core/core.test-support.js';
import {
  type ApiCall,
  apiSession,
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  CHROMIUM_ARGS,
  createTempDirs,
  ensureBuilt,
  panelReady,
  type RunningHal,
  SCREENSHOT_DIR,
  seriousAxeViolations,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);

// Issue #16 points 2, 3 and 7 (pages) in a real browser against a real `hal serve`: one language at a time with the
// operator's saved choice, a styled login page with a favicon, cards that keep words whole at 1400 and 390 px,
// a skip link for the keyboard, a release upload that shows its progress, HAL notes that keep their line breaks,
// a slash command shown once, a job page that follows its job live, and axe-core on /ops and /ops/ai.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

describe.skipIf(!hasChromium)('the console pages in Chromium', () => {
  let hal: RunningHal;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  const temp = createTempDirs();

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    hal = await startHal(cli, temp.make('hal-console-data-'));
    call = await apiSession(hal.url, hal.password);
    context = await chromium.launchPersistentContext(temp.make('hal-console-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    temp.remove();
  });

  it('shows a styled login page with a favicon, in the language the browser asks for', async () => {
    await page.setExtraHTTPHeaders({ 'accept-language': 'en-US,en;q=0.9' });
    await page.goto(`${hal.url}/ops/login`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(page.locator('button[type=submit]').textContent()).resolves.toBe('Sign in');
    // Headless Chromium asks for en-US by itself: a Korean browser asks for ko.
    await page.setExtraHTTPHeaders({ 'accept-language': 'ko-KR,ko;q=0.9' });
    await page.goto(`${hal.url}/ops/login`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ko');
    // The console's stylesheet applies: the form is a card, centred, not the browser's bare defaults.
    const look = await page.evaluate(() => {
      const card = document.querySelector('main.login') as HTMLElement;
      const style = getComputedStyle(card);
      return {
        border: style.borderTopStyle,
        radius: style.borderTopLeftRadius,
        display: getComputedStyle(document.body).display,
      };
    });
    expect(look).toEqual({ border: 'solid', radius: '8px', display: 'grid' });
    const icon = await page.evaluate(async () => {
      const link = document.querySelector<HTMLLinkElement>('link[rel=icon]');
      const response = await fetch(link?.href ?? '');
      return { status: response.status, type: response.headers.get('content-type') };
    });
    expect(icon).toEqual({ status: 200, type: 'image/svg+xml' });
  });

  it('keeps the DR card words whole at 1400 and 390 px, and saves screenshots of the overview', async () => {
    await signIn(page, hal);
    for (const width of [1400, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${hal.url}/ops`);
      const age = page.locator('#dr-card [data-dr-age]');
      await expect(age.textContent()).resolves.toBe('없음');
      // One line: a word cut in two ("ne ver") would make the value two lines high.
      const lines = await age.evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      });
      expect(lines).toBe(1);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `overview-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 90_000);

  it('reaches the content by keyboard and switches the language for the pages and the panel', async () => {
    await page.goto(`${hal.url}/ops`);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.className)).resolves.toBe('skip-link');
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('content');

    await page.locator('form.language select').selectOption('en');
    await Promise.all([page.waitForURL(`${hal.url}/ops`), page.locator('form.language button').click()]);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(page.locator('nav.menu a[aria-current=page]').textContent()).resolves.toBe('Overview');
    await expect(page.locator('#dr-card [data-dr-age]').textContent()).resolves.toBe('never');
    // The panel follows <html lang>: its strings are English too.
    await page.waitForSelector('[data-hal-panel][data-ready=true]', { timeout: 30_000 });
    await expect(page.locator('.hal-toggle').getAttribute('aria-label')).resolves.toMatch(/AI panel/);
    // Saved per operator: a reload keeps it.
    await page.reload();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await page.locator('form.language select').selectOption('ko');
    await Promise.all([page.waitForURL(`${hal.url}/ops`), page.locator('form.language button').click()]);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ko');
  });

  it('shows the progress of a release upload and lands on the releases page', async () => {
    const artifact = await makeArtifact(temp.make('hal-console-artifact-'), 'portal', '1.0.0', {
      'index.js': `console.log(${JSON.stringify('x'.repeat(200_000))})\n`,
    });
    await page.goto(`${hal.url}/ops/releases`);
    const form = page.locator('form[data-upload-progress]');
    await form.locator('input[name=module]').fill('portal');
    await form.locator('input[name=version]').fill('1.0.0');
    await form.locator('input[name=sha256]').fill(artifact.sha256);
    await form.locator('input[name=artifact]').setInputFiles(artifact.file);
    // The page goes away when the upload ends: what the progress bar showed is kept in sessionStorage.
    await form.evaluate((element: HTMLFormElement) => {
      new MutationObserver(() => {
        const bar = element.querySelector('progress');
        sessionStorage.setItem('hal-upload-sent', element.dataset.uploadSent ?? '');
        sessionStorage.setItem('hal-upload-shown', String(bar !== null && !bar.hidden));
      }).observe(element, { attributes: true, subtree: true });
    });
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/ops/releases' && url.search.includes('notice')),
      form.locator('button[type=submit]').click(),
    ]);
    await expect(page.locator('tr[data-release-id]').count()).resolves.toBe(1);
    const seen = await page.evaluate(() => ({
      sent: Number(sessionStorage.getItem('hal-upload-sent')),
      shown: sessionStorage.getItem('hal-upload-shown'),
    }));
    expect(seen.shown).toBe('true');
    expect(seen.sent).toBeGreaterThan(0);
  });

  it("keeps the line breaks of a HAL note (/help), says HAL notes in the reader's language and shows the typed slash command once", async () => {
    await page.goto(`${hal.url}/ops`);
    await panelReady(page);
    const input = page.locator('.hal-input');
    await input.fill('/help');
    // As an operator does it: Enter takes the suggested command, the next Enter sends it.
    await input.press('Enter');
    await expect(input.inputValue()).resolves.toBe('/help ');
    await input.press('Enter');
    const note = page.locator('.hal-note[data-code=command_help]').last();
    await note.waitFor({ timeout: 30_000 });
    // innerText is what the browser lays out: a run-on paragraph would be one line.
    // biome-ignore lint/performance/useDomNodeTextContent: the laid-out text, with the line breaks a reader sees, is what is tested
    const lines = (await note.innerText()).split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.every((line) => line.startsWith('/'))).toBe(true);
    // Said in the reader's language (Korean, the default), from the note's code and params: not the stored English.
    expect(lines[0]).toBe(`/help — ${translate('ko', 'panel_command_help')}`);
    expect(lines).toContain(`/reset — ${translate('ko', 'panel_command_reset')}`);
    const operator = page.locator('.hal-role-user').last();
    // biome-ignore lint/performance/useDomNodeTextContent: the laid-out text, with the line breaks a reader sees, is what is tested
    const said = await operator.locator('.hal-message-body').innerText();
    expect(said.trim()).toBe('/help');

    // /reset's own note is Korean too; the same stored notes read English once the operator switches language.
    await input.fill('/reset');
    await input.press('Enter');
    await input.press('Enter');
    const reset = page.locator('.hal-note[data-code^=command_reset]').last();
    await reset.waitFor({ timeout: 30_000 });
    await expect(reset.textContent()).resolves.toBe(translate('ko', 'panel_note_command_reset'));
    await page.locator('form.language select').selectOption('en');
    await Promise.all([page.waitForURL(`${hal.url}/ops`), page.locator('form.language button').click()]);
    await panelReady(page);
    const resetEn = page.locator('.hal-note[data-code^=command_reset]').last();
    await resetEn.waitFor({ timeout: 30_000 });
    await expect(resetEn.textContent()).resolves.toBe(translate('en', 'panel_note_command_reset'));
    await page.locator('form.language select').selectOption('ko');
    await Promise.all([page.waitForURL(`${hal.url}/ops`), page.locator('form.language button').click()]);
  }, 90_000);

  it('follows a running job on its page until it succeeds, without a reload', async () => {
    const created = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
      name: 'app-1',
      role: 'app',
    });
    const serverId = created.body.server.id;
    expect((await call('POST', `/ops/api/hal/servers/${serverId}/approve`)).status).toBe(200);
    const issued = await call<{ token: string }>('POST', `/ops/api/hal/servers/${serverId}/agent-token`);
    const agent = { authorization: `Bearer ${issued.body.token}` };
    const queued = await call<{ job: { id: string } }>('POST', '/ops/api/hal/deployments/health', {
      serverId,
      module: 'portal',
    });
    expect(queued.status).toBe(202);
    const jobId = queued.body.job.id;
    await page.goto(`${hal.url}/ops/jobs/${encodeURIComponent(jobId)}`);
    await expect(page.locator('[data-job-live]').count()).resolves.toBe(1);
    await expect(page.locator('[data-job-state]').getAttribute('data-job-state')).resolves.toMatch(
      /^(queued|running)$/,
    );
    // A reload would drop this mark: the page must change under it.
    await page.evaluate(() => {
      (window as unknown as { halSamePage: boolean }).halSamePage = true;
    });
    // The test is the server's agent: it takes the health check and holds it while the page shows it running.
    const next = await fetch(`${hal.url}/agent/api/next?waitS=20`, { headers: agent });
    const { command } = (await next.json()) as { command: { id: string; op: string } };
    expect(command.op).toBe('health');
    await page.locator('[data-job-state=running]').waitFor({ timeout: 20_000 });
    const answered = await fetch(`${hal.url}/agent/api/results/${command.id}`, {
      method: 'POST',
      headers: { ...agent, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, result: { ok: true, detail: 'portal answers' }, logs: [] }),
    });
    expect(answered.status).toBe(204);
    await page.locator('[data-job-state=succeeded]').waitFor({ timeout: 20_000 });
    await expect(page.locator('[data-step=health] pre.log').textContent()).resolves.toContain(
      'portal answers',
    );
    await expect(page.locator('[data-job-live]').count()).resolves.toBe(0);
    const same = await page.evaluate(() => ({
      mark: (window as unknown as { halSamePage?: boolean }).halSamePage,
      settled: document.documentElement.dataset.jobSettled,
    }));
    expect(same).toEqual({ mark: true, settled: 'true' });
  }, 90_000);

  it('passes axe-core on /ops and /ops/ai with no serious or critical violation', async () => {
    for (const route of ['/ops', '/ops/ai']) {
      await page.goto(`${hal.url}${route}`);
      await panelReady(page);
      if (route === '/ops/ai') {
        await page.waitForSelector('[data-hal-connections][data-ready=true]', { timeout: 30_000 });
        await page.waitForSelector('.hal-cli-list[data-ready=true]', { timeout: 30_000 });
      }
      expect({ route, violations: await seriousAxeViolations(page) }).toEqual({ route, violations: [] });
    }
  }, 90_000);
});
