import { describe, expect, it } from 'vitest';
import { createTranslator } from './i18n/index.js';
import { testDetail } from './panel-debate.test-support.js';
import { renderDocumentDiff, renderDocumentPane } from './panel-debate-document.js';
import { createTestContext } from './panel-dom.test-support.js';

function setup() {
  const { document, markdown } = createTestContext();
  return { document, markdown, t: createTranslator('ko') };
}

describe('renderDocumentDiff', () => {
  it('marks added and removed lines and keeps model text as text, never as HTML', () => {
    const context = setup();
    const pre = renderDocumentDiff(context, [
      { kind: 'same', text: '# Doc' },
      { kind: 'removed', text: '<img src=x onerror="alert(1)">' },
      { kind: 'added', text: '<script>alert(2)</script> - agreed' },
    ]);
    expect([...pre.children].map((line) => [line.tagName, line.getAttribute('data-kind')])).toEqual([
      ['SPAN', 'same'],
      ['DEL', 'removed'],
      ['INS', 'added'],
    ]);
    expect(pre.querySelector('img, script')).toBeNull();
    expect(pre.querySelector('del')?.textContent).toBe('- <img src=x onerror="alert(1)">');
    expect(pre.querySelector('ins')?.textContent).toBe('+ <script>alert(2)</script> - agreed');
  });

  it('says so when the two versions are the same', () => {
    const context = setup();
    const pre = renderDocumentDiff(context, [{ kind: 'same', text: 'x' }]);
    expect(pre.textContent).toBe(context.t('panel_debate_diff_none'));
  });
});

describe('renderDocumentPane', () => {
  it('renders the current version through the sanitiser and reports a chosen version pair', () => {
    const context = setup();
    const detail = testDetail(2);
    detail.debate.document.text = '# Doc\n\n<img src=x onerror="alert(1)"> **bold**';
    const asked: Array<[number, number]> = [];
    const toggles: boolean[] = [];
    const pane = renderDocumentPane(context, detail, {
      diffOpen: false,
      onToggle: (open) => toggles.push(open),
      onDiff: (from, to) => asked.push([from, to]),
    });
    const text = pane.querySelector('.hal-debate-document-text');
    expect(text?.querySelector('h1')?.textContent).toBe('Doc');
    expect(text?.querySelector('strong')?.textContent).toBe('bold');
    expect(text?.querySelector('img[onerror]')).toBeNull();
    expect(pane.querySelector('details')?.hasAttribute('open')).toBe(false);
    const from = pane.querySelector<HTMLSelectElement>('select[name=from]');
    const to = pane.querySelector<HTMLSelectElement>('select[name=to]');
    expect([...(from?.options ?? [])].map((option) => option.value)).toEqual(['2', '1', '0']);
    expect(from?.value).toBe('1');
    expect(to?.value).toBe('2');
    if (from) from.value = '0';
    from?.dispatchEvent(new (context.document.defaultView as unknown as typeof globalThis).Event('change'));
    expect(asked).toEqual([[0, 2]]);
  });
});
