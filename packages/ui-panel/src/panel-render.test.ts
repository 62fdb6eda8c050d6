import type { ContentBlock } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { renderActionCard } from './panel-action-card.js';
import { createTestContext, testAction, testConnection, testMessage } from './panel-dom.test-support.js';
import { renderMessage, renderTabs } from './panel-render.js';

describe('renderMessage', () => {
  const context = createTestContext([testConnection({ id: 'c1', name: 'claude' })]);

  it('renders model markdown with the author and usage "not provided" when absent', () => {
    const element = renderMessage(context, testMessage({ content: [{ type: 'text', text: '**hi**' }] }));
    expect(element.querySelector('.hal-author')?.textContent).toBe('claude');
    expect(element.querySelector('.hal-md strong')?.textContent).toBe('hi');
    expect(element.querySelector('.hal-usage')?.textContent).toBe('사용량 제공되지 않음');
  });

  it('shows reported usage with the grouping of the language, and the time in its form', () => {
    const message = testMessage({
      usage: { inputTokens: 12_345, outputTokens: 3 },
      createdAt: '2026-12-02T15:04:05.000Z',
    });
    const ko = renderMessage(context, message);
    expect(ko.querySelector('.hal-usage')?.textContent).toBe('사용량: 입력 12,345 · 출력 3');
    expect(ko.querySelector('time.hal-time')?.getAttribute('datetime')).toBe('2026-12-02T15:04:05.000Z');
    expect(ko.querySelector('time.hal-time')?.textContent).toBe('2026. 12. 02. 15:04:05');
    const en = renderMessage(createTestContext([], 'en'), message);
    expect(en.querySelector('.hal-usage')?.textContent).toBe('usage: in 12,345 · out 3');
    expect(en.querySelector('time.hal-time')?.textContent).toBe('12/02/2026, 15:04:05');
  });

  it('never shows reasoning as the answer, and shows reasoning tokens where reported', () => {
    const element = renderMessage(
      context,
      testMessage({
        content: [
          {
            type: 'reasoning',
            text: 'secret chain of thought',
            providerMetadata: { anthropic: { signature: 's' } },
          },
          { type: 'text', text: 'The answer.' },
        ],
        usage: { inputTokens: 4, outputTokens: 30, reasoningTokens: 24 },
      }),
    );
    expect(element.textContent).not.toContain('secret chain of thought');
    expect(element.querySelector('.hal-md')?.textContent?.trim()).toBe('The answer.');
    expect(element.querySelector('.hal-usage')?.textContent).toBe('사용량: 입력 4 · 출력 30 · 추론 24');
  });

  it('shows operator text as text, never as markup', () => {
    const element = renderMessage(
      context,
      testMessage({
        role: 'user',
        connectionId: null,
        content: [{ type: 'text', text: '<img src=x onerror=alert(1)>' }],
      }),
    );
    expect(element.querySelector('img')).toBeNull();
    expect(element.querySelector('.hal-text')?.textContent).toBe('<img src=x onerror=alert(1)>');
  });

  it('labels relayed replies and shows failures with their code, not as text', () => {
    const relayed = renderMessage(context, testMessage({ relayDepth: 1, relayedFrom: 'm0' }));
    expect(relayed.querySelector('.hal-relay-label')?.textContent).toBe('릴레이 답변');
    const failed = renderMessage(
      context,
      testMessage({ status: 'failed', content: [], error: { code: 'provider_auth', message: 'bad key' } }),
    );
    expect(failed.querySelector('.hal-failure')?.getAttribute('data-error-code')).toBe('provider_auth');
    expect(failed.querySelector('.hal-failure')?.textContent).toContain(context.t('error_provider_auth'));
    expect(failed.querySelector('.hal-failure')?.textContent).not.toContain('bad key');
    expect(failed.querySelector('.hal-failure')?.getAttribute('title')).toBe('bad key (provider_auth)');
    expect(failed.querySelector('.hal-md')).toBeNull();
  });

  it('renders streamed text while streaming, and tool calls/results collapsible', () => {
    const streaming = renderMessage(context, testMessage({ status: 'streaming', content: [] }), 'part *one*');
    expect(streaming.querySelector('.hal-md em')?.textContent).toBe('one');
    expect(streaming.querySelector('.hal-streaming')).not.toBeNull();
    const tools = renderMessage(
      context,
      testMessage({
        content: [
          { type: 'tool-call', toolCallId: 't1', toolName: 'hal_health', input: { a: 1 } },
          { type: 'tool-result', toolCallId: 't1', toolName: 'hal_health', output: { ok: true } },
        ],
      }),
    );
    const sections = tools.querySelectorAll('details');
    expect(sections).toHaveLength(2);
    expect(sections[0]?.querySelector('summary')?.textContent).toBe('도구 호출: hal_health');
    expect(sections[1]?.querySelector('code')?.textContent).toContain('"ok": true');
  });

  it('renders HAL notes and the English catalogue', () => {
    const english = createTestContext([], 'en');
    const note = renderMessage(
      english,
      testMessage({
        role: 'system',
        connectionId: null,
        content: [{ type: 'note', text: 'relay limit', code: 'relay_limit' }],
      }),
    );
    expect(note.querySelector('.hal-author')?.textContent).toBe('HAL');
    expect(note.querySelector('.hal-note')?.textContent).toBe('relay limit');
  });

  it("shows a typed slash command once, and a debate control beside the operator's words", () => {
    const typed = renderMessage(
      context,
      testMessage({
        role: 'user',
        connectionId: null,
        content: [
          { type: 'text', text: '/help' },
          { type: 'command', command: 'help', args: [] },
        ],
      }),
    );
    expect(typed.querySelector('.hal-message-body')?.textContent).toBe('/help');
    expect(typed.querySelector('.hal-text.hal-command')?.textContent).toBe('/help');
    const control = renderMessage(
      context,
      testMessage({
        role: 'user',
        connectionId: null,
        content: [
          { type: 'text', text: 'focus on cost' },
          { type: 'command', command: 'debate_redirect', args: [] },
        ],
      }),
    );
    expect(control.querySelector('.hal-text')?.textContent).toBe('focus on cost');
    expect(control.querySelector('div.hal-command code')?.textContent).toBe('/debate_redirect');
  });
});

describe('renderTabs', () => {
  it('puts 통합 first, then connections in order with status marks, then +', () => {
    const context = createTestContext([
      testConnection({ id: 'c1', name: 'claude' }),
      testConnection({ id: 'c2', name: 'gpt', status: 'reauth_required' }),
    ]);
    const tabs = renderTabs(
      context,
      [
        {
          id: 'r2',
          kind: 'direct',
          title: 'gpt',
          fixed: false,
          connectionId: 'c2',
          position: 2,
          tokenBudget: null,
          tokensUsed: 0,
        },
        {
          id: 'r1',
          kind: 'direct',
          title: '',
          fixed: false,
          connectionId: 'c1',
          position: 1,
          tokenBudget: null,
          tokensUsed: 0,
        },
        {
          id: 'u',
          kind: 'unified',
          title: 'Unified',
          fixed: true,
          connectionId: null,
          position: 0,
          tokenBudget: null,
          tokensUsed: 0,
        },
      ],
      'r1',
    );
    // The tablist holds only tabs (axe: aria-required-children); `+` is a link beside it.
    const list = tabs.querySelector('[role=tablist]');
    expect([...(list?.children ?? [])].map((child) => child.getAttribute('role'))).toEqual([
      'tab',
      'tab',
      'tab',
    ]);
    const titles = [...tabs.querySelectorAll('[role=tab] .hal-tab-title')].map((node) => node.textContent);
    expect(titles).toEqual(['통합', 'claude', 'gpt']);
    expect(tabs.querySelector('[aria-selected=true]')?.getAttribute('data-room-id')).toBe('r1');
    expect(tabs.querySelector('[data-room-id=r2] .hal-status-mark')?.getAttribute('data-status')).toBe(
      'reauth_required',
    );
    expect(tabs.querySelector(':scope > a.hal-tab-add')?.getAttribute('href')).toBe('/ops/ai');
  });

  it('puts debate rooms after the direct rooms, titled by their topic', () => {
    const context = createTestContext([testConnection({ id: 'c1', name: 'claude' })]);
    const room = (id: string, kind: 'unified' | 'direct' | 'debate', position: number, title = '') => ({
      id,
      kind,
      title,
      fixed: kind === 'unified',
      connectionId: kind === 'direct' ? 'c1' : null,
      position,
      tokenBudget: null,
      tokensUsed: 0,
    });
    const tabs = renderTabs(
      context,
      [room('d1', 'debate', 1, '탭 대 스페이스'), room('r1', 'direct', 5), room('u', 'unified', 0)],
      'd1',
    );
    const titles = [...tabs.querySelectorAll('[role=tab] .hal-tab-title')].map((node) => node.textContent);
    expect(titles).toEqual(['통합', 'claude', '탭 대 스페이스']);
  });
});

describe('renderActionCard', () => {
  it('warns on a tainted proposal and offers the "I checked the arguments" box while it waits', () => {
    const context = createTestContext([]);
    const waiting = renderActionCard(context, testAction({ tainted: true }));
    expect(waiting.querySelector('.hal-tainted')?.textContent).toContain('웹 콘텐츠');
    expect(waiting.querySelector<HTMLInputElement>('input.hal-tainted-confirm')?.checked).toBe(false);
    const decided = renderActionCard(context, testAction({ tainted: true, status: 'executed' }));
    expect(decided.querySelector('.hal-tainted')).not.toBeNull();
    expect(decided.querySelector('input.hal-tainted-confirm')).toBeNull();
    expect(renderActionCard(context, testAction()).querySelector('.hal-tainted')).toBeNull();
  });

  const context = createTestContext();

  it('shows tool, arguments, tier, identifiers and buttons while proposed', () => {
    const card = renderActionCard(context, testAction());
    expect(card.querySelector('.hal-action-tool')?.textContent).toBe('hal_server_isolate');
    expect(card.querySelector('.hal-risk')?.getAttribute('data-risk')).toBe('high');
    expect(card.querySelector('.hal-identifiers')?.textContent).toBe('srv-1');
    expect(card.querySelector('.hal-action-raw pre')?.textContent).toContain('"serverId": "srv-1"');
    expect(card.querySelectorAll('button[data-act]')).toHaveLength(2);
  });

  it('drops the buttons once decided and shows the error of a failed action', () => {
    const card = renderActionCard(
      context,
      testAction({ status: 'failed', error: { code: 'not_found', message: 'no server' } }),
    );
    expect(card.querySelectorAll('button')).toHaveLength(0);
    expect(card.querySelector('.hal-action-state')?.textContent).toBe('실패');
    expect(card.querySelector('.hal-failure')?.textContent).toBe(context.t('error_not_found'));
    expect(card.querySelector('.hal-failure')?.getAttribute('title')).toBe('no server (not_found)');
  });
});

describe('web sources on an operator message', () => {
  const context = createTestContext([testConnection({ id: 'c1', name: 'claude' })]);
  const operatorMessage = (content: ContentBlock[]) =>
    renderMessage(context, testMessage({ role: 'user', connectionId: null, content }));

  it('shows a fetched page as a collapsible source with its title, final URL and truncation', () => {
    const element = operatorMessage([
      { type: 'text', text: 'read https://example.com/a' },
      {
        type: 'context',
        source: 'web',
        url: 'https://example.com/a',
        finalUrl: 'https://example.com/b',
        title: '<b>Notes</b>',
        text: 'page text',
        truncated: true,
        fetchedAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    const source = element.querySelector('details.hal-web-source');
    expect(source?.querySelector('.hal-web-title')?.textContent).toBe('<b>Notes</b>');
    expect(source?.querySelector('b')).toBeNull();
    expect(source?.querySelector('.hal-web-truncated')?.textContent).toBe('잘림');
    const link = source?.querySelector('.hal-web-final a');
    expect(link?.getAttribute('href')).toBe('https://example.com/b');
    expect(link?.getAttribute('rel')).toContain('noopener');
    expect(source?.querySelector('.hal-web-text')?.textContent).toBe('page text');
  });

  it('shows a failed fetch with its code', () => {
    const element = operatorMessage([
      { type: 'text', text: 'x' },
      {
        type: 'context',
        source: 'web',
        url: 'http://10.0.0.1/',
        error: { code: 'web_blocked', message: 'private' },
      },
    ]);
    const source = element.querySelector('details.hal-web-source-failed');
    expect(source?.querySelector('.hal-web-failed')?.getAttribute('data-code')).toBe('web_blocked');
    expect(source?.querySelector('.hal-web-error')?.textContent).toBe('private');
  });
});
