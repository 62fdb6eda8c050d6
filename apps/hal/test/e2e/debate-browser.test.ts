import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FakeRequest, FakeServer, FakeStep } from '@hal-ai/providers/testing';
import { createFakeOpenAI } from '@hal-ai/providers/testing';
import { type PanelMessageKey, translate } from '@hal-ai/ui-panel/i18n';
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
  SCREENSHOT_DIR,
  signIn,
  startHal,
} from './panel-browser.test-support.js';

const hasChromium = fs.existsSync(CHROMIUM);
const ko = (key: PanelMessageKey, values?: Record<string, string | number>) => translate('ko', key, values);

function textOf(message: { content?: unknown } | undefined): string {
  if (!message) return '';
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
}

/**
 * The three models of the debate on one OpenAI fake, told apart by what HAL sends them: the moderator's tasks
 * start with their task line, a debater's call carries "# Your part: a debater". Round 2's verdict asks the
 * operator; from round 3 on the speakers answer slowly, so a pause or a stop lands while a round is in flight.
 */
function createDebateScript() {
  let merges = 0;
  let verdicts = 0;
  const respond = (request: FakeRequest): FakeStep => {
    const messages =
      (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
    const system = messages
      .filter((message) => message.role === 'system' || message.role === 'developer')
      .map(textOf)
      .join('\n');
    const last = textOf([...messages].reverse().find((message) => message.role === 'user'));
    if (system.includes('# Your part: a debater')) {
      const others = /You debate with ([^;]+);/.exec(system)?.[1] ?? '';
      const self = others.includes('Alpha') ? 'Beta' : 'Alpha';
      const text = `${self} argues round ${verdicts + 1}: spaces keep diffs stable.`;
      return verdicts >= 2 ? { text, chunks: 30, chunkDelayMs: 200 } : { text };
    }
    if (last.startsWith('Task: brief the next speaker.')) {
      const speaker = /by turn it would be ([^)]+)\)/.exec(last)?.[1] ?? 'Alpha';
      return { text: `SPEAKER: ${speaker}\n${speaker}, answer the other side on indentation.` };
    }
    if (last.startsWith('Task: merge the working document.')) {
      merges += 1;
      const points = Array.from({ length: merges }, (_, index) => `- point ${index + 1}`);
      return { text: ['# Working document', '', ...points].join('\n') };
    }
    if (last.startsWith('Task: judge this round.')) {
      verdicts += 1;
      const verdict =
        verdicts === 1
          ? { decision: 'continue', agreement_level: 'disagree', reason: 'Round one: no common ground yet.' }
          : verdicts === 2
            ? {
                decision: 'ask_user',
                agreement_level: 'partial',
                reason: 'Both sides wait for the team rule.',
                question: 'Which does the team use today?',
              }
            : { decision: 'continue', agreement_level: 'partial', reason: `Round ${verdicts}: closer.` };
      return { text: JSON.stringify({ agreed: ['a formatter'], disputed: ['width'], ...verdict }) };
    }
    return { text: 'A short note from the moderator.' };
  };
  return { respond };
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

describe.skipIf(!hasChromium)('the debate view in the panel (Chromium, real hal serve)', () => {
  const temp = createTempDirs();
  let hal: RunningHal;
  let fake: FakeServer;
  let call: ApiCall;
  let context: BrowserContext;
  let page: Page;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const cli = ensureBuilt();
    fake = await createFakeOpenAI({ models: [{ id: 'fake-debate' }], respond: createDebateScript().respond });
    hal = await startHal(cli, temp.make('hal-e2e-debate-'));
    call = await apiSession(hal.url, hal.password);
    for (const name of ['Moderator', 'Alpha', 'Beta']) {
      ids[name] = await createFakeConnection(call, { name, baseUrl: fake.baseUrl, model: 'fake-debate' });
    }
    ({ context, page } = await launchChromium(temp.make('hal-chromium-debate-')));
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

  const status = () => page.locator('.hal-debate-status').getAttribute('data-status');
  const waitForStatus = (expected: string) =>
    page.waitForSelector(`.hal-debate-status[data-status=${expected}]`, { timeout: 60_000 });
  const rounds = () => page.locator('.hal-debate-round');
  const meter = () => page.locator('.hal-debate-meter-text').textContent();
  const control = (name: string) => page.locator(`.hal-debate-controls button[data-control=${name}]`);

  it('runs a debate from the panel: create, live rounds, verdicts, diff, inject, pause, resume, stop', async () => {
    // Marked once: a reload of the page would lose it, so rounds that appear later came in live.
    await page.evaluate(() => {
      (window as unknown as { debateMark: boolean }).debateMark = true;
    });

    // ---- create: a refused cast shows the server's message; then a good one opens the debate tab ----
    await page.getByRole('button', { name: ko('panel_debate_new') }).click();
    const dialog = page.locator('dialog.hal-debate-new');
    await dialog.waitFor({ state: 'visible' });
    await dialog.getByLabel(ko('panel_debate_topic')).fill('탭 대 스페이스');
    await dialog.getByLabel(ko('panel_debate_moderator')).selectOption(ids.Moderator as string);
    await dialog.locator(`input[name=debaterIds][value="${ids.Moderator}"]`).check();
    await dialog.locator(`input[name=debaterIds][value="${ids.Alpha}"]`).check();
    await dialog.getByRole('button', { name: ko('panel_debate_start') }).click();
    const refusal = dialog.locator('.hal-dialog-error[data-error-code=debate_invalid]');
    await refusal.waitFor();
    // The rule that failed, in the operator's language (the server names it in `details.reason`).
    await expect(refusal.textContent()).resolves.toBe(
      translate('ko', 'error_debate_invalid_moderator_is_debater'),
    );
    await dialog.locator(`input[name=debaterIds][value="${ids.Moderator}"]`).uncheck();
    await dialog.locator(`input[name=debaterIds][value="${ids.Beta}"]`).check();
    await dialog.getByLabel(ko('panel_debate_max_rounds')).fill('8');
    await dialog.getByRole('button', { name: ko('panel_debate_start') }).click();
    await dialog.waitFor({ state: 'detached' });
    // The new debate's tab is selected, after the direct rooms.
    await page.waitForSelector('[role=tab][aria-selected=true] .hal-tab-title:text-is("탭 대 스페이스")');
    const tabs = await page.locator('[role=tab] .hal-tab-title').allTextContents();
    expect(tabs.slice(1)).toEqual(['Moderator', 'Alpha', 'Beta', '탭 대 스페이스']);
    await expect(page.locator('.hal-composer').isHidden()).resolves.toBe(true);

    // ---- rounds arrive live, each with its speaker, verdict and agreement ----
    await page.waitForFunction(() => document.querySelectorAll('.hal-debate-round').length === 2, undefined, {
      timeout: 60_000,
    });
    await waitForStatus('waiting_operator');
    await expect(
      page.evaluate(() => (window as unknown as { debateMark?: boolean }).debateMark),
    ).resolves.toBe(true);
    await expect(rounds().nth(0).locator('.hal-debate-speaker').textContent()).resolves.toBe('Alpha');
    await expect(rounds().nth(1).locator('.hal-debate-speaker').textContent()).resolves.toBe('Beta');
    await expect(rounds().nth(0).locator('.hal-debate-agreement').textContent()).resolves.toBe(
      ko('panel_debate_agreement_disagree'),
    );
    await expect(rounds().nth(1).locator('.hal-debate-agreement').textContent()).resolves.toBe(
      ko('panel_debate_agreement_partial'),
    );
    await expect(rounds().nth(1).locator('.hal-debate-decision').textContent()).resolves.toBe(
      ko('panel_debate_decision_ask_user'),
    );
    await expect(page.locator('.hal-debate-waiting').textContent()).resolves.toContain(
      'Which does the team use today?',
    );
    await expect(control('answer').isEnabled()).resolves.toBe(true);
    await expect(control('pause').isDisabled()).resolves.toBe(true);
    // No Wiki.js is set up on this HAL: the view says so (publishing never holds the debate up).
    await expect(page.locator('.hal-debate-wiki[data-state=off]').textContent()).resolves.toBe(
      ko('panel_debate_wiki_off'),
    );
    const meterAfterTwo = await meter();
    expect(meterAfterTwo).toMatch(/토큰 [1-9]\d* \/ 200000/);
    await shot(page, 'debate-rounds-1400');

    // ---- the working document and the diff between its versions ----
    await page.locator('.hal-debate-panes [data-pane=document]').click();
    await expect(page.locator('.hal-debate-document-text li').allTextContents()).resolves.toEqual([
      'point 1',
      'point 2',
    ]);
    const diffBox = page.locator('details.hal-debate-diff-box');
    await expect(diffBox.evaluate((node) => (node as HTMLDetailsElement).open)).resolves.toBe(false);
    await diffBox.locator('summary').click();
    await expect(page.locator('.hal-debate-diff ins').allTextContents()).resolves.toEqual(['+ - point 2']);
    await page.locator('select[name=from]').selectOption('0');
    await page.waitForFunction(() => document.querySelectorAll('.hal-debate-diff ins').length === 3);
    // Version 0 is the empty start: everything but the blank line is new.
    await expect(page.locator('.hal-debate-diff ins').allTextContents()).resolves.toEqual([
      '+ # Working document',
      '+ - point 1',
      '+ - point 2',
    ]);
    await shot(page, 'debate-diff-1400');
    await page.locator('.hal-debate-panes [data-pane=rounds]').click();

    // ---- inject, then answer: both reach the next round as the operator's words ----
    const injected = `운영자 메모 ${randomBytes(4).toString('hex')}`;
    await page.locator('.hal-debate-words').fill(injected);
    await control('inject').click();
    await page.waitForFunction(
      () => document.querySelector<HTMLTextAreaElement>('.hal-debate-words')?.value === '',
    );
    await page.locator('.hal-debate-words').fill('스페이스를 씁니다.');
    await control('answer').click();
    await waitForStatus('running');

    // ---- pause while round 3 is in flight: it finishes and no round 4 starts ----
    await control('pause').click();
    await waitForStatus('paused');
    await expect(control('resume').isEnabled()).resolves.toBe(true);
    await page.waitForFunction(() => document.querySelectorAll('.hal-debate-round').length >= 3, undefined, {
      timeout: 60_000,
    });
    const third = rounds().nth(2);
    await third.locator('details.hal-debate-round-input summary').click();
    const operatorWords = await third.locator('.hal-debate-operator .hal-text').allTextContents();
    expect(operatorWords).toEqual([injected, '스페이스를 씁니다.']);
    await expect(third.locator('.hal-debate-operator strong').first().textContent()).resolves.toBe(
      ko('panel_debate_operator_words', { name: 'admin' }),
    );
    const meterAfterThree = await meter();
    expect(meterAfterThree).not.toBe(meterAfterTwo);
    const pausedRounds = await rounds().count();
    expect(await status()).toBe('paused');

    // ---- resume: a new round comes; stop ends it and every control goes off ----
    await control('resume').click();
    await waitForStatus('running');
    await page.waitForFunction(
      (count) => document.querySelectorAll('.hal-debate-round').length > count,
      pausedRounds,
      { timeout: 90_000 },
    );
    await control('stop').click();
    await waitForStatus('stopped');
    for (const name of ['inject', 'redirect', 'answer', 'pause', 'resume', 'stop']) {
      await expect(control(name).isDisabled()).resolves.toBe(true);
    }
    await expect(page.locator('a.hal-debate-export').getAttribute('href')).resolves.toMatch(
      /^\/ops\/api\/ai\/debates\/[^/]+\/export$/,
    );
    const exported = await page.evaluate(async () => {
      const href = document.querySelector('a.hal-debate-export')?.getAttribute('href') ?? '';
      const response = await fetch(href);
      return { status: response.status, text: await response.text() };
    });
    expect(exported.status).toBe(200);
    expect(exported.text).toContain('탭 대 스페이스');
    await shot(page, 'debate-stopped-1400');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.hal-debate').scrollIntoViewIfNeeded();
    await shot(page, 'debate-stopped-390');
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 300_000);
});
