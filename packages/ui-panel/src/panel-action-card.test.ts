import { describe, expect, it } from 'vitest';
import { renderActionCard, toImpactAnswer } from './panel-action-card.js';
import { createTestContext, testAction } from './panel-dom.test-support.js';

describe('renderActionCard (an operator can judge it)', () => {
  const context = createTestContext();

  it('lists the arguments as key/value pairs, as text, with the raw JSON one click away', () => {
    const card = renderActionCard(
      context,
      testAction({
        args: { serverId: 'srv-1', reason: '<b>disk</b>', tags: ['a', 'b'], opts: { force: true } },
      }),
    );
    const values = card.querySelector('.hal-action-args');
    expect([...(values?.querySelectorAll(':scope > dt') ?? [])].map((node) => node.textContent)).toEqual([
      'serverId',
      'reason',
      'tags',
      'opts',
    ]);
    expect(values?.querySelector('dd[data-key=reason]')?.textContent).toBe('<b>disk</b>');
    expect(values?.querySelector('b')).toBeNull();
    expect(values?.querySelector('dd[data-key=tags]')?.textContent).toBe('a, b');
    expect(values?.querySelector('dd[data-key=force]')?.textContent).toBe('true');
    const raw = card.querySelector<HTMLDetailsElement>('details.hal-action-raw');
    expect(raw?.open).toBe(false);
    expect(JSON.parse(raw?.querySelector('pre')?.textContent ?? '')).toEqual({
      serverId: 'srv-1',
      reason: '<b>disk</b>',
      tags: ['a', 'b'],
      opts: { force: true },
    });
  });

  it('shows the impact HAL computed for write and high actions, never for read', () => {
    const impact = {
      summary: 'Isolate server web-1: no deployments, its agent is refused',
      server: { id: 'srv-1', name: 'web-1', state: 'active' },
      change: { state: { from: 'active', to: 'isolated' } },
    };
    const card = renderActionCard(context, testAction(), toImpactAnswer({ impact, refusal: null }));
    expect(card.querySelector('.hal-impact-summary')?.textContent).toBe(impact.summary);
    // In the operator's language (the test context is Korean, the default), as `field: from → to`.
    expect(card.querySelector('.hal-impact-changes li[data-field=state]')?.textContent).toBe(
      '상태: 활성 → 격리됨',
    );
    expect(card.querySelector('.hal-impact-facts dd[data-key=name]')?.textContent).toBe('web-1');
    expect(renderActionCard(context, testAction()).querySelector('.hal-action-impact')).toBeNull();
    const read = renderActionCard(context, testAction({ risk: 'read' }), toImpactAnswer({ impact }));
    expect(read.querySelector('.hal-action-impact')).toBeNull();
    const refused = renderActionCard(
      context,
      testAction(),
      toImpactAnswer({ impact: null, refusal: { code: 'invalid_state', message: 'server is isolated' } }),
    );
    expect(refused.querySelector('.hal-impact-refusal')?.getAttribute('data-code')).toBe('invalid_state');
    expect(refused.querySelector('.hal-action-impact')).toBeNull();
  });

  it('says when there are no arguments, and is one labelled, focusable unit', () => {
    const card = renderActionCard(context, testAction({ args: {} }));
    expect(card.querySelector('.hal-action-args-empty')?.textContent).toBe('인자 없음');
    expect(card.getAttribute('tabindex')).toBe('-1');
    const label = card.querySelector(`#${card.getAttribute('aria-labelledby')}`);
    expect(label?.textContent).toContain('hal_server_isolate');
  });

  it('says when the impact is loading or could not be loaded, and holds approve until it is known', () => {
    const approve = (card: HTMLElement) => card.querySelector<HTMLButtonElement>('button[data-act=approve]');
    const loading = renderActionCard(context, testAction(), {
      impact: null,
      refusal: null,
      state: 'loading',
    });
    expect(loading.querySelector('.hal-impact-loading')?.textContent).toBe('영향을 계산하는 중…');
    expect(approve(loading)?.disabled).toBe(true);
    const failed = renderActionCard(context, testAction(), { impact: null, refusal: null, state: 'failed' });
    expect(failed.querySelector('.hal-impact-failed[role=alert]')?.textContent).toContain(
      '불러오지 못했습니다',
    );
    expect(failed.querySelector('button[data-impact-retry]')).not.toBeNull();
    expect(approve(failed)?.disabled).toBe(true);
    expect(approve(failed)?.getAttribute('aria-describedby')).toBe(
      failed.querySelector('.hal-impact-failed')?.id,
    );
    // Reject stays: saying no is always safe.
    expect(failed.querySelector<HTMLButtonElement>('button[data-act=reject]')?.disabled).toBe(false);
    const known = renderActionCard(
      context,
      testAction(),
      toImpactAnswer({ impact: { summary: 'Isolate server web-1' }, refusal: null }),
    );
    expect(approve(known)?.disabled).toBe(false);
    expect(known.querySelector('.hal-impact-failed, .hal-impact-loading')).toBeNull();
    // A decided proposal shows no pending state.
    const decided = renderActionCard(context, testAction({ status: 'rejected' }), {
      impact: null,
      refusal: null,
      state: 'failed',
    });
    expect(decided.querySelector('.hal-impact-failed')).toBeNull();
  });
});
