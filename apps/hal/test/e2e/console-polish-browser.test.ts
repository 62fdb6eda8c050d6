import fs from 'node:fs';
import path from 'node:path';
import { translate } from '@hal-ai/ui-panel/i18n';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { installFakeLoginCli } from '../../src/ai/shell/shell-fake-cli.test-support.js';
import { makeArtifact } from '../../src/domain/core/core.test-support.js';
import {
  type ApiCall,
  apiSession,
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
// follows the re-auth prompt shows its progress like the first one; the job list follows its queued and running
// jobs live (one mechanism with the job page), and a paused job resumed elsewhere comes back live.
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

describe.skipIf(!hasChromium)('job lists that follow their jobs live', () => {
  let hal: RunningHal;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  let serverId: string;
  let agent: Record<string, string>;
  const temp = createTempDirs();

  beforeAll(async () => {
    hal = await startHal(ensureBuilt(), temp.make('hal-polish-jobs-'));
    call = await apiSession(hal.url, hal.password);
    ({ context, page } = await launchChromium(temp.make('hal-polish-jobs-chromium-')));
    await signIn(page, hal);
    const created = await call<{ server: { id: string } }>('POST', '/ops/api/hal/servers', {
      name: 'app-1',
      role: 'app',
    });
    serverId = created.body.server.id;
    expect((await call('POST', `/ops/api/hal/servers/${serverId}/approve`)).status).toBe(200);
    const issued = await call<{ token: string }>('POST', `/ops/api/hal/servers/${serverId}/agent-token`);
    agent = { authorization: `Bearer ${issued.body.token}` };
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    temp.remove();
  });

  async function queueHealth(): Promise<string> {
    const queued = await call<{ job: { id: string } }>('POST', '/ops/api/hal/deployments/health', {
      serverId,
      module: 'portal',
    });
    expect(queued.status).toBe(202);
    return queued.body.job.id;
  }

  /** The test is the server's agent: it takes the next command and later answers it. */
  async function takeCommand(): Promise<string> {
    const next = await fetch(`${hal.url}/agent/api/next?waitS=20`, { headers: agent });
    const { command } = (await next.json()) as { command: { id: string; op: string } };
    expect(command.op).toBe('health');
    return command.id;
  }

  async function answer(commandId: string): Promise<void> {
    const answered = await fetch(`${hal.url}/agent/api/results/${commandId}`, {
      method: 'POST',
      headers: { ...agent, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, result: { ok: true, detail: 'portal answers' }, logs: [] }),
    });
    expect(answered.status).toBe(204);
  }

  async function markPage(): Promise<void> {
    // A reload would drop this mark: the page must change under it.
    await page.evaluate(() => {
      (window as unknown as { halSamePage: boolean }).halSamePage = true;
    });
  }

  async function samePage(): Promise<boolean | undefined> {
    return page.evaluate(() => (window as unknown as { halSamePage?: boolean }).halSamePage);
  }

  it("updates a running job's row on the jobs page without a reload, until it settles", async () => {
    const jobId = await queueHealth();
    await page.goto(`${hal.url}/ops/jobs`);
    // The row's state badge (`data-state`, as the page had before it followed anything).
    const badge = (state: string) => page.locator(`tr[data-job-id="${jobId}"] [data-state=${state}]`);
    await expect(
      page.locator(`tr[data-job-id="${jobId}"] [data-state]`).getAttribute('data-state'),
    ).resolves.toMatch(/^(queued|running)$/);
    await expect(page.locator('[data-live-part][data-job-live]').count()).resolves.toBe(1);
    await markPage();
    const commandId = await takeCommand();
    await badge('running').waitFor({ timeout: 20_000 });
    await answer(commandId);
    await badge('succeeded').waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => document.documentElement.dataset.jobSettled === 'true', null, {
      timeout: 20_000,
    });
    await expect(page.locator('[data-job-live]').count()).resolves.toBe(0);
    await expect(samePage()).resolves.toBe(true);
  });

  it('comes back to live when a paused job is resumed elsewhere', async () => {
    // Health checks hold the runner (two at a time) while they wait for the agent: one queued after them stays
    // queued, and stopping a queued job pauses it at once.
    const state = async (id: string) =>
      (await call<{ job: { state: string } }>('GET', `/ops/api/hal/jobs/${id}`)).body.job.state;
    let jobId = await queueHealth();
    let held = 0;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if ((await state(jobId)) === 'queued') break;
      held += 1;
      expect(held).toBeLessThan(4);
      jobId = await queueHealth();
    }
    expect((await call('POST', `/ops/api/hal/jobs/${jobId}/stop`, { reason: 'hold' })).status).toBe(200);
    await page.goto(`${hal.url}/ops/jobs/${encodeURIComponent(jobId)}`);
    await expect(page.locator('[data-job-state]').getAttribute('data-job-state')).resolves.toBe('paused');
    await expect(page.locator('[data-job-live]').count()).resolves.toBe(0);
    await markPage();
    // Resumed from another session (the API here): the page picks it up and follows it to the end.
    expect((await call('POST', `/ops/api/hal/jobs/${jobId}/resume`, { reason: 'go' })).status).toBe(200);
    await page.locator('[data-job-live] [data-job-state=queued]').waitFor({ timeout: 20_000 });
    for (let n = 0; n <= held; n += 1) await answer(await takeCommand());
    await page.locator('[data-job-state=succeeded]').waitFor({ timeout: 20_000 });
    await expect(page.locator('[data-job-live]').count()).resolves.toBe(0);
    await expect(samePage()).resolves.toBe(true);
  });
});

describe.skipIf(!hasChromium)('the discovered-CLI card', () => {
  let hal: RunningHal;
  let context: BrowserContext;
  let page: Page;
  const temp = createTempDirs();
  let notExecutable: string;

  beforeAll(async () => {
    const bin = temp.make('hal-polish-cli-bin-');
    const claude = installFakeLoginCli(bin, 'claude', { code: 'c0de' });
    // The default model comes from Claude Code's own settings in HAL's home.
    const home = temp.make('hal-polish-cli-home-');
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ model: 'opus' }));
    // A codex that is not there: its check fails, and the card says why.
    notExecutable = path.join(bin, 'codex-not-executable');
    fs.writeFileSync(notExecutable, 'not a program', { mode: 0o644 });
    hal = await startHal(ensureBuilt(), temp.make('hal-polish-cli-data-'), {
      CLAUDE_BIN: claude.file,
      CODEX_BIN: notExecutable,
      HOME: home,
      LANG: 'C.UTF-8',
    });
    ({ context, page } = await launchChromium(temp.make('hal-polish-cli-chromium-')));
    await signIn(page, hal);
  }, 600_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await hal?.stop();
    temp.remove();
  });

  it('shows the exact login command in <code> inside a catalogue sentence, the default model and the error', async () => {
    await page.goto(`${hal.url}/ops/ai`);
    await page.waitForSelector('.hal-cli-list[data-ready=true]', { timeout: 30_000 });
    const claude = page.locator('.hal-cli-card[data-cli=claude]');
    await expect(claude.locator('[data-cli-model]').textContent()).resolves.toBe('opus');
    // Only the command is code: no English sentence, no backticks.
    await expect(claude.locator('code[data-cli-command]').textContent()).resolves.toBe('claude auth login');
    const sentence = await claude
      .locator('code[data-cli-command]')
      .evaluate((code) => code.parentElement?.textContent);
    expect(sentence).toBe(`${translate('ko', 'cli_login_command')} claude auth login`);
    expect(sentence).not.toContain('`');
    const codex = page.locator('.hal-cli-card[data-cli=codex]');
    // The check's error (`cli.error`) is shown, after the catalogue's words.
    await expect(codex.locator('[data-cli-error]').textContent()).resolves.toMatch(
      new RegExp(`^${translate('ko', 'cli_error')} .*codex`),
    );
  });
});
