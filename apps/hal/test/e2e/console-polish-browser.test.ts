import fs from 'node:fs';
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

// Issue #16 point 3 (gaps an audit found), in a real browser against a real `hal serve`: the release upload that
// follows the re-auth prompt shows its progress like the first one.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

/** The page goes away when an upload ends: what its progress bar showed is kept in sessionStorage. */
async function recordUploadProgress(page: Page): Promise<void> {
  await page.locator('form[data-upload-progress]').evaluate((element: HTMLFormElement) => {
    new MutationObserver(() => {
      const bar = element.querySelector('progress');
      sessionStorage.setItem('hal-upload-sent', element.dataset.uploadSent ?? '');
      sessionStorage.setItem('hal-upload-shown', String(bar !== null && !bar.hidden));
    }).observe(element, { attributes: true, subtree: true });
  });
}

describe.skipIf(!hasChromium)('release upload after the re-auth prompt', () => {
  let hal: RunningHal;
  let context: BrowserContext;
  let page: Page;
  const temp = createTempDirs();

  beforeAll(async () => {
    // A 1 s re-auth window: the upload, a few seconds after signing in, is asked for the password again.
    hal = await startHal(ensureBuilt(), temp.make('hal-polish-upload-'), { HAL_REAUTH_WINDOW_S: '1' });
    ({ context, page } = await launchChromium(temp.make('hal-polish-upload-chromium-')));
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    temp.remove();
  });

  it('shows the progress of the real upload sent after the password prompt', async () => {
    const artifact = await makeArtifact(temp.make('hal-polish-artifact-'), 'portal', '1.0.0', {
      'index.js': `console.log(${JSON.stringify('x'.repeat(200_000))})\n`,
    });
    await signIn(page, hal);
    await page.goto(`${hal.url}/ops/releases`);
    const first = page.locator('form[data-upload-progress]');
    await first.locator('input[name=module]').fill('portal');
    await first.locator('input[name=version]').fill('1.0.0');
    await first.locator('input[name=sha256]').fill(artifact.sha256);
    await first.locator('input[name=artifact]').setInputFiles(artifact.file);
    await page.waitForTimeout(1500);
    await first.locator('button[type=submit]').click();

    // The answer is the re-auth form (the window lapsed): it asks for the password and the file again.
    const password = page.locator('input[name=reauthPassword], input[type=password]').first();
    await password.waitFor({ timeout: 20_000 });
    const again = page.locator('form[data-upload-progress]');
    await expect(again.count()).resolves.toBe(1);
    await expect(again.locator('input[type=file]').count()).resolves.toBe(1);
    await expect(again.locator('progress').count()).resolves.toBe(1);
    // The page script hooks the re-auth form as it hooked the first one.
    await page.waitForFunction(() => document.readyState === 'complete');
    await password.fill(hal.password);
    await again.locator('input[type=file]').setInputFiles(artifact.file);
    await recordUploadProgress(page);
    await page.evaluate(() => sessionStorage.removeItem('hal-upload-sent'));
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/ops/releases' && url.search.includes('notice'), {
        timeout: 30_000,
      }),
      again.locator('button[type=submit]').click(),
    ]);
    await expect(page.locator('tr[data-release-id]').count()).resolves.toBe(1);
    const seen = await page.evaluate(() => ({
      sent: Number(sessionStorage.getItem('hal-upload-sent')),
      shown: sessionStorage.getItem('hal-upload-shown'),
    }));
    expect(seen.shown).toBe('true');
    expect(seen.sent).toBeGreaterThan(0);
  });
});
