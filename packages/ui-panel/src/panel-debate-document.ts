/**
 * The debate's working document in the panel: the current version as Markdown (through the panel's sanitising
 * renderer) and a line diff between two versions. Diff lines are model text: they become text nodes only, never
 * HTML, so nothing a model writes can run or restyle the page.
 */
import type { DebateDocumentVersion } from '@hal-ai/spec';
import type { Translator } from './i18n/index.js';
import type { DebateDetail, DebateDiffLine } from './panel-debate-state.js';
import { diffChoices } from './panel-debate-state.js';
import { createElement } from './panel-dom.js';
import type { MarkdownRenderer } from './panel-markdown.js';

/** What the document renderers need. */
export interface DebateDocumentContext {
  document: Document;
  t: Translator;
  markdown: MarkdownRenderer;
}

const MARKS: Record<DebateDiffLine['kind'], { tag: string; mark: string }> = {
  added: { tag: 'ins', mark: '+' },
  removed: { tag: 'del', mark: '-' },
  same: { tag: 'span', mark: ' ' },
};

/**
 * Renders diff lines as a `<pre>` of one element per line (`ins` added, `del` removed, `span` unchanged), each
 * with its `+`/`-` mark, built from text nodes only.
 *
 * @example
 * host.append(renderDocumentDiff(context, [{ kind: 'added', text: '- agreed: a formatter' }]));
 */
export function renderDocumentDiff(
  context: DebateDocumentContext,
  lines: readonly DebateDiffLine[],
): HTMLElement {
  const { document, t } = context;
  const pre = createElement(document, 'pre', {
    class: 'hal-debate-diff',
    'aria-label': t('panel_debate_diff'),
  });
  if (lines.every((line) => line.kind === 'same')) {
    pre.append(
      createElement(document, 'span', { class: 'hal-debate-diff-none' }, [t('panel_debate_diff_none')]),
    );
    return pre;
  }
  for (const line of lines) {
    const { tag, mark } = MARKS[line.kind];
    pre.append(
      createElement(document, tag, { class: `hal-diff-line hal-diff-${line.kind}`, 'data-kind': line.kind }, [
        `${mark} ${line.text}`,
      ]),
    );
  }
  return pre;
}

function versionSelect(
  context: DebateDocumentContext,
  name: 'from' | 'to',
  documents: readonly DebateDocumentVersion[],
  selected: number,
): HTMLSelectElement {
  const { document, t } = context;
  const select = createElement(document, 'select', {
    class: `hal-debate-diff-${name}`,
    name,
    'aria-label': t(name === 'from' ? 'panel_debate_diff_from' : 'panel_debate_diff_to'),
  }) as HTMLSelectElement;
  for (const version of diffChoices(documents)) {
    const option = createElement(document, 'option', { value: String(version) }, [
      t('panel_debate_version', { version }),
    ]) as HTMLOptionElement;
    option.selected = version === selected;
    select.append(option);
  }
  return select;
}

/** How the document pane's diff box stands and reports back (it outlives a re-render). */
export interface DocumentPaneState {
  diffOpen: boolean;
  onToggle(open: boolean): void;
  /** A picker changed: the view reads that diff from the server. */
  onDiff(from: number, to: number): void;
}

/**
 * The document pane: the current version rendered as sanitised Markdown, then the diff (a disclosure, closed
 * until the operator opens it) with two version pickers (`from`, `to`).
 */
export function renderDocumentPane(
  context: DebateDocumentContext,
  detail: DebateDetail,
  state: DocumentPaneState,
): HTMLElement {
  const { document, t } = context;
  const current = detail.debate.document;
  const body = createElement(document, 'div', { class: 'hal-md hal-debate-document-text' });
  if (current.text.trim() === '') {
    body.append(
      createElement(document, 'p', { class: 'hal-debate-empty' }, [t('panel_debate_document_empty')]),
    );
  } else {
    // The renderer's output is sanitised by DOMPurify (panel-markdown.ts).
    body.innerHTML = context.markdown.render(current.text);
  }
  const from = versionSelect(context, 'from', detail.documents, detail.diff.from);
  const to = versionSelect(context, 'to', detail.documents, detail.diff.to);
  const changed = () => state.onDiff(Number(from.value), Number(to.value));
  from.addEventListener('change', changed);
  to.addEventListener('change', changed);
  const box = createElement(document, 'details', {
    class: 'hal-debate-diff-box',
    open: state.diffOpen ? '' : undefined,
  }) as HTMLDetailsElement;
  box.addEventListener('toggle', () => state.onToggle(box.open));
  box.append(
    createElement(document, 'summary', {}, [
      t('panel_debate_diff_title', { from: detail.diff.from, to: detail.diff.to }),
    ]),
    createElement(document, 'div', { class: 'hal-debate-diff-pick' }, [from, to]),
    renderDocumentDiff(context, detail.diff.lines),
  );
  return createElement(document, 'section', { class: 'hal-debate-document' }, [
    createElement(document, 'h3', { class: 'hal-debate-subtitle' }, [
      t('panel_debate_document_title', { version: current.version }),
    ]),
    body,
    box,
  ]);
}
