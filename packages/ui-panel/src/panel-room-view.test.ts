import { describe, expect, it } from 'vitest';
import type { ActionImpactAnswer } from './panel-action-card.js';
import { createTestContext, testAction, testConnection, testMessage } from './panel-dom.test-support.js';
import { BLOCK_CLASS, BLOCK_SIZE } from './panel-message-blocks.js';
import { createRoomView } from './panel-room-view.js';
import { createRoomTimeline } from './panel-sse.js';

function setup() {
  const context = createTestContext([testConnection({ id: 'c1', name: 'claude' })]);
  const list = context.document.createElement('div');
  context.document.body.append(list);
  const view = createRoomView(context, list);
  const timeline = createRoomTimeline();
  return { context, list, view, timeline };
}

const toolMessage = (id: string, seq: number) =>
  testMessage({
    id,
    seq,
    content: [
      { type: 'tool-call', toolCallId: `t${seq}`, toolName: 'hal_health', input: {} },
      { type: 'text', text: `answer ${seq}` },
    ],
  });

describe('createRoomView', () => {
  it('touches only the streaming message on a streamed batch', () => {
    const { list, view, timeline } = setup();
    timeline.merge({ messages: [toolMessage('m1', 1), toolMessage('m2', 2)] });
    timeline.apply({
      type: 'message',
      message: testMessage({ id: 'm3', seq: 3, status: 'streaming', content: [] }),
    });
    view.render(timeline);
    const before = [...list.children];
    const firstBody = list.querySelector('[data-message-id=m1] .hal-md');
    const details = list.querySelector<HTMLDetailsElement>('[data-message-id=m1] details');
    if (details) details.open = true;
    for (const chunk of ['Hel', 'lo ', '**wor', 'ld**\n\nnext']) {
      timeline.apply({ type: 'delta', messageId: 'm3', connectionId: 'c1', text: chunk });
      view.render(timeline);
    }
    expect([...list.children]).toEqual(before);
    expect(list.querySelector('[data-message-id=m1] .hal-md')).toBe(firstBody);
    expect(list.querySelector<HTMLDetailsElement>('[data-message-id=m1] details')?.open).toBe(true);
    expect(list.querySelector('[data-message-id=m3] .hal-md-part strong')?.textContent).toBe('world');
    expect(list.querySelector('[data-message-id=m3] .hal-md-tail')?.textContent?.trim()).toBe('next');
  });

  it('keeps a long room in blocks: a streamed batch and its completion touch only the last block', () => {
    const { context, list, view, timeline } = setup();
    const count = 2 * BLOCK_SIZE + 5;
    timeline.merge({
      messages: Array.from({ length: count }, (_, index) => toolMessage(`m${index + 1}`, index + 1)),
    });
    const streaming = testMessage({ id: 'live', seq: count + 1, status: 'streaming', content: [] });
    timeline.apply({ type: 'message', message: streaming });
    view.render(timeline);
    const blocks = [...list.children];
    expect(blocks.map((block) => [block.className, block.children.length])).toEqual([
      [BLOCK_CLASS, BLOCK_SIZE],
      [BLOCK_CLASS, BLOCK_SIZE],
      [BLOCK_CLASS, 6],
    ]);
    const details = list.querySelector<HTMLDetailsElement>('[data-message-id=m2] details');
    if (details) details.open = true;
    const selection = context.document.getSelection();
    const range = context.document.createRange();
    range.selectNodeContents(list.querySelector('[data-message-id=m1] .hal-md') as Node);
    selection?.addRange(range);
    // Which block each change landed in, read right after each render (the streaming node leaves its block later).
    const touched = new Set<Element>();
    const observer = new (context.document.defaultView as Window & typeof globalThis).MutationObserver(
      () => {},
    );
    observer.observe(list, { childList: true, subtree: true, characterData: true, attributes: true });
    const record = () => {
      for (const change of observer.takeRecords())
        touched.add(blocks.find((block) => block.contains(change.target)) ?? list);
    };
    for (const chunk of ['Hel', 'lo ', 'world']) {
      timeline.apply({ type: 'delta', messageId: 'live', connectionId: 'c1', text: chunk });
      view.render(timeline);
      record();
    }
    timeline.apply({
      type: 'message',
      message: { ...streaming, status: 'complete', content: [{ type: 'text', text: 'Hello world' }] },
    });
    view.render(timeline);
    record();
    observer.disconnect();
    expect([...touched]).toEqual([blocks[2]]);
    expect([...list.children]).toEqual(blocks);
    expect(list.querySelector('[data-message-id=live]')?.parentElement).toBe(blocks[2]);
    expect(list.querySelector('[data-message-id=live] .hal-md')?.textContent?.trim()).toBe('Hello world');
    expect(list.querySelector<HTMLDetailsElement>('[data-message-id=m2] details')?.open).toBe(true);
    expect(selection?.toString().trim()).toBe('answer 1');
  });

  it('renders a message anew when it completes, keeping its opened details open', () => {
    const { list, view, timeline } = setup();
    const streaming = testMessage({
      id: 'm1',
      status: 'streaming',
      content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'hal_health', input: {} }],
    });
    timeline.apply({ type: 'message', message: streaming });
    timeline.apply({ type: 'delta', messageId: 'm1', connectionId: 'c1', text: 'partial' });
    view.render(timeline);
    const details = list.querySelector<HTMLDetailsElement>('details.hal-tool-call');
    if (details) details.open = true;
    timeline.apply({
      type: 'message',
      message: {
        ...streaming,
        status: 'complete',
        content: [...streaming.content, { type: 'text', text: 'done' }],
      },
    });
    view.render(timeline);
    expect(list.querySelector('.hal-streaming')).toBeNull();
    expect(list.querySelector('.hal-md')?.textContent?.trim()).toBe('done');
    expect(list.querySelector<HTMLDetailsElement>('details.hal-tool-call')?.open).toBe(true);
    expect(list.querySelectorAll('.hal-message')).toHaveLength(1);
  });

  it('updates a proposal card live in its slot, leaving the message node alone', () => {
    const { list, view, timeline } = setup();
    const holder = testMessage({ id: 'm1', content: [{ type: 'action', actionId: 'a1' }] });
    const result = testMessage({
      id: 'm2',
      seq: 2,
      role: 'tool',
      content: [{ type: 'action', actionId: 'a1' }],
    });
    timeline.merge({ messages: [holder, result], actions: [testAction({ id: 'a1' })] });
    view.render(timeline);
    const message = list.querySelector('[data-message-id=m1]');
    list.querySelector<HTMLDetailsElement>('.hal-action-raw')?.setAttribute('open', '');
    expect(list.querySelector('.hal-action')?.getAttribute('data-status')).toBe('proposed');
    expect(list.querySelectorAll('.hal-action')).toHaveLength(1);
    timeline.apply({
      type: 'action',
      action: testAction({ id: 'a1', status: 'executed', result: { state: 'isolated' } }),
    });
    view.render(timeline);
    expect(list.querySelector('[data-message-id=m1]')).toBe(message);
    const card = list.querySelector('[data-message-id=m1] .hal-action');
    expect(card?.getAttribute('data-status')).toBe('executed');
    expect(card?.querySelector('button')).toBeNull();
    expect(card?.querySelector<HTMLDetailsElement>('.hal-action-raw')?.open).toBe(true);
    expect(card?.querySelector('.hal-result-values dd[data-key=state]')?.textContent).toBe('isolated');
    expect(list.querySelector('[data-message-id=m2] .hal-action-ref')?.getAttribute('data-status')).toBe(
      'executed',
    );
  });

  it('renders an invalidated card anew even when the action did not change', () => {
    const { list, view, timeline } = setup();
    timeline.merge({ messages: [], actions: [testAction({ id: 'a1' })] });
    view.render(timeline);
    const first = list.querySelector('.hal-action');
    first?.querySelectorAll('button').forEach((button) => {
      button.disabled = true;
    });
    view.render(timeline);
    expect(list.querySelector('.hal-action')).toBe(first);
    view.invalidateAction('a1');
    view.render(timeline);
    expect(list.querySelector('.hal-action')).not.toBe(first);
    expect(list.querySelector<HTMLButtonElement>('.hal-action button')?.disabled).toBe(false);
  });

  it('keeps seq order when a late message arrives and forgets everything on reset', () => {
    const { list, view, timeline } = setup();
    timeline.merge({ messages: [testMessage({ id: 'm1', seq: 1 }), testMessage({ id: 'm3', seq: 3 })] });
    view.render(timeline);
    timeline.merge({ messages: [testMessage({ id: 'm2', seq: 2 })] });
    view.render(timeline);
    expect(
      [...list.querySelectorAll('.hal-message')].map((node) => node.getAttribute('data-message-id')),
    ).toEqual(['m1', 'm2', 'm3']);
    view.reset();
    expect(list.children).toHaveLength(0);
  });

  it('renders a card anew when the impact HAL computed arrives', () => {
    const context = createTestContext();
    const list = context.document.createElement('div');
    let answer: ActionImpactAnswer | undefined;
    const view = createRoomView(context, list, { impactOf: () => answer });
    const timeline = createRoomTimeline();
    timeline.merge({ messages: [], actions: [testAction({ id: 'a1' })] });
    view.render(timeline);
    expect(list.querySelector('.hal-action-impact')).toBeNull();
    answer = { impact: { summary: 'Isolate server web-1' }, refusal: null };
    view.render(timeline);
    expect(list.querySelector('.hal-impact-summary')?.textContent).toBe('Isolate server web-1');
  });
});
