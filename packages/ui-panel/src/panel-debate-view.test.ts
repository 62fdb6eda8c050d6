import type { Debate } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { createTranslator } from './i18n/index.js';
import { PanelHttpError } from './panel-api.js';
import { createScriptedApi, testDetail, testRound } from './panel-debate.test-support.js';
import type { DebateDetail } from './panel-debate-state.js';
import { createDebateView } from './panel-debate-view.js';
import { createTestContext, testConnection } from './panel-dom.test-support.js';

const room = {
  id: 'r-debate',
  kind: 'debate' as const,
  title: '탭 대 스페이스',
  fixed: false,
  connectionId: null,
  position: 3,
  tokenBudget: 200_000,
  tokensUsed: 0,
};
const t = createTranslator('ko');

function setup(script: { detail: () => DebateDetail; send?: (path: string, body: unknown) => unknown }) {
  const context = createTestContext([
    testConnection({ id: 'c1', name: 'claude' }),
    testConnection({ id: 'c2', name: 'gpt' }),
  ]);
  const host = context.document.createElement('div');
  const messages = context.document.createElement('div');
  context.document.body.append(host, messages);
  const api = createScriptedApi({
    get: (path) => (path === '/ops/api/ai/debates' ? { debates: [script.detail().debate] } : script.detail()),
    send: (_method, path, body) => script.send?.(path, body),
  });
  const view = createDebateView({ context, api, host, messages });
  return { context, host, messages, api, view };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createDebateView', () => {
  it('shows the round timeline with speaker, verdict and agreement, the meter and the export link', async () => {
    const detail = testDetail(2, { tokensUsed: 1234 });
    detail.rounds[1] = testRound(2, {
      verdict: {
        decision: 'ask_user',
        agreement_level: 'agree',
        reason: 'Both agree',
        agreed: [],
        disputed: ['x'],
      },
    });
    const { host, view } = setup({ detail: () => detail });
    await view.show(room);
    const rounds = [...host.querySelectorAll<HTMLElement>('.hal-debate-round')];
    expect(rounds.map((round) => round.dataset.round)).toEqual(['1', '2']);
    expect(rounds[0]?.querySelector('.hal-debate-speaker')?.textContent).toBe('claude');
    expect(rounds[1]?.querySelector('.hal-debate-speaker')?.textContent).toBe('gpt');
    expect(rounds[1]?.querySelector('.hal-debate-agreement')?.textContent).toBe(
      t('panel_debate_agreement_agree'),
    );
    expect(rounds[1]?.querySelector('.hal-debate-decision')?.textContent).toBe(
      t('panel_debate_decision_ask_user'),
    );
    expect(host.querySelector('.hal-debate-meter-text')?.textContent).toBe(
      t('panel_debate_tokens_used', { used: 1234, budget: 200_000 }),
    );
    expect(host.querySelector('a.hal-debate-export')?.getAttribute('href')).toBe(
      '/ops/api/ai/debates/d1/export',
    );
    expect(host.querySelector('.hal-debate-in-flight')?.textContent).toBe(
      t('panel_debate_in_flight', { n: 3 }),
    );
  });

  it('adds a round that a live debate event announces, without a reload of the page', async () => {
    let detail = testDetail(1);
    const { host, view, api } = setup({ detail: () => detail });
    await view.show(room);
    expect(host.querySelectorAll('.hal-debate-round')).toHaveLength(1);
    // A status change alone comes with the event: no extra read.
    const reads = api.calls.length;
    view.onDebate({ ...detail.debate, tokensUsed: 50, updatedAt: '2026-01-01T00:00:01.000Z' });
    expect(api.calls.length).toBe(reads);
    expect(host.querySelector('.hal-debate-meter-text')?.textContent).toContain('50');
    detail = testDetail(2, { updatedAt: '2026-01-01T00:00:02.000Z' });
    view.onDebate(detail.debate);
    await settle();
    expect(
      [...host.querySelectorAll<HTMLElement>('.hal-debate-round')].map((round) => round.dataset.round),
    ).toEqual(['1', '2']);
    // An older state arriving late never replaces the newer one.
    view.onDebate({ ...detail.debate, status: 'paused', updatedAt: '2026-01-01T00:00:00.500Z' });
    expect(host.querySelector('.hal-debate-status')?.getAttribute('data-status')).toBe('running');
  });

  it('shows the document with its diff and reads the diff of the versions the operator picks', async () => {
    const detail = testDetail(2);
    const { host, view, api, context } = setup({ detail: () => detail });
    await view.show(room);
    host.querySelector<HTMLElement>('[data-pane=document]')?.click();
    expect(host.querySelector('.hal-debate-document h3')?.textContent).toBe(
      t('panel_debate_document_title', { version: 2 }),
    );
    expect(host.querySelector('.hal-debate-diff ins')?.textContent).toBe('+ - point 2');
    const from = host.querySelector<HTMLSelectElement>('select[name=from]');
    if (from) from.value = '0';
    from?.dispatchEvent(new (context.document.defaultView as unknown as typeof globalThis).Event('change'));
    await settle();
    expect(api.calls.at(-1)?.path).toBe('/ops/api/ai/debates/d1?from=0&to=2');
  });

  it("switches to the room's messages and back", async () => {
    const { host, messages, view } = setup({ detail: () => testDetail(1) });
    await view.show(room);
    expect(messages.hidden).toBe(true);
    host.querySelector<HTMLElement>('[data-pane=messages]')?.click();
    expect(messages.hidden).toBe(false);
    expect(host.querySelector<HTMLElement>('.hal-debate-body')?.hidden).toBe(true);
    view.hide();
    expect(host.hidden).toBe(true);
    expect(messages.hidden).toBe(false);
  });

  it('enables the controls by state, sends the words, and shows a 409 debate_not_running refusal', async () => {
    let detail = testDetail(2, { status: 'waiting_operator', question: 'A or B?' });
    const sent: Array<{ path: string; body: unknown }> = [];
    let refuse = false;
    const { host, view } = setup({
      detail: () => detail,
      send: (path, body) => {
        sent.push({ path, body });
        if (refuse)
          throw new PanelHttpError(409, {
            code: 'debate_not_running',
            message: 'The debate is stopped: pause does not apply now',
          });
        const debate: Debate = {
          ...detail.debate,
          status: 'running',
          question: null,
          updatedAt: '2026-01-01T00:00:05.000Z',
        };
        detail = { ...detail, debate };
        return { debate };
      },
    });
    await view.show(room);
    const button = (control: string) =>
      host.querySelector<HTMLButtonElement>(`button[data-control=${control}]`);
    expect(host.querySelector('.hal-debate-waiting')?.textContent).toBe(
      `${t('panel_debate_question')}: A or B?`,
    );
    expect(
      ['inject', 'redirect', 'answer', 'pause', 'resume', 'stop'].map((name) => button(name)?.disabled),
    ).toEqual([false, false, false, true, true, false]);
    // Words are needed first; nothing is sent without them.
    button('answer')?.click();
    await settle();
    expect(sent).toEqual([]);
    expect(host.querySelector('.hal-debate-error')?.textContent).toBe(t('panel_debate_words_needed'));
    const words = host.querySelector<HTMLTextAreaElement>('.hal-debate-words');
    if (words) words.value = 'Go with A';
    button('answer')?.click();
    await settle();
    expect(sent).toEqual([{ path: '/ops/api/ai/debates/d1/answer', body: { text: 'Go with A' } }]);
    expect(words?.value).toBe('');
    expect(host.querySelector('.hal-debate-status')?.getAttribute('data-status')).toBe('running');
    expect(button('answer')?.disabled).toBe(true);
    expect(button('pause')?.disabled).toBe(false);
    // The view was a moment behind: the server's refusal is shown with its code.
    refuse = true;
    button('pause')?.click();
    await settle();
    expect(sent.at(-1)).toEqual({ path: '/ops/api/ai/debates/d1/pause', body: {} });
    const error = host.querySelector<HTMLElement>('.hal-debate-error');
    expect(error?.dataset.errorCode).toBe('debate_not_running');
    expect(error?.textContent).toBe(t('error_debate_not_running'));
    expect(error?.title).toBe('The debate is stopped: pause does not apply now (debate_not_running)');
  });
});
