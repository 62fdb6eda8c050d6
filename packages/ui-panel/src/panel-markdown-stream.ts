import { createElement } from './panel-dom.js';
import type { MarkdownRenderer } from './panel-markdown.js';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Where the completed blocks of a growing markdown text end: the offset just after the last blank
 * line (outside a code fence) that is followed by a line starting a new top-level block (not
 * indented, so no list continuation or indented code). Everything before it no longer changes as
 * more text streams in; everything after it is the tail. Scans from `from`, which must itself be
 * such a boundary (or 0). Returns `from` when no later boundary exists.
 *
 * @example
 * completedBlocksEnd('one\n\ntwo', 0); // 5: "one\n\n" is complete, "two" may still grow
 */
export function completedBlocksEnd(text: string, from = 0): number {
  let boundary = from;
  let fence: string | null = null;
  let lineStart = from;
  let previousBlank = false;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    // The last line may still grow: it can end a fence or a block only once its newline arrived.
    if (newline === -1) {
      if (fence === null && previousBlank && !/^[ \t]/.test(text.slice(lineStart))) boundary = lineStart;
      break;
    }
    const line = text.slice(lineStart, newline);
    const marker = FENCE.exec(line)?.[1];
    if (fence === null && previousBlank && line.trim() !== '' && !/^[ \t]/.test(line)) boundary = lineStart;
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      previousBlank = false;
    } else {
      previousBlank = fence === null && line.trim() === '';
    }
    lineStart = newline + 1;
  }
  return boundary;
}

/** The growing markdown of one streaming message. */
export interface StreamingMarkdown {
  /** The `.hal-md` element: one child per completed part, then the tail. */
  readonly element: HTMLElement;
  /** Shows `text` (the whole text streamed so far; it only ever grows). */
  update(text: string): void;
}

/**
 * Renders a message's markdown while it streams without re-parsing it from the start on every
 * batch: completed blocks ({@link completedBlocksEnd}) are parsed and sanitised once and never
 * touched again (so a selection in them survives), only the tail is re-rendered. If the text
 * does not extend what was shown (a catch-up replaced it), it starts over.
 *
 * @example
 * const live = createStreamingMarkdown(document, markdown);
 * body.append(live.element);
 * live.update(timeline.streamed(message.id));
 */
export function createStreamingMarkdown(document: Document, markdown: MarkdownRenderer): StreamingMarkdown {
  const element = createElement(document, 'div', { class: 'hal-md hal-md-streaming' });
  const tail = createElement(document, 'div', { class: 'hal-md-tail' });
  element.append(tail);
  let shown = '';
  let committed = 0;
  let tailText = '';
  return {
    element,
    update(text) {
      if (text === shown) return;
      if (!text.startsWith(shown)) {
        element.replaceChildren(tail);
        committed = 0;
        tailText = '';
      }
      shown = text;
      const end = completedBlocksEnd(text, committed);
      if (end > committed) {
        const part = createElement(document, 'div', { class: 'hal-md-part' });
        // Sanitised by DOMPurify inside the renderer (panel-markdown.ts).
        part.innerHTML = markdown.render(text.slice(committed, end));
        tail.before(part);
        committed = end;
      }
      const rest = text.slice(committed);
      if (rest !== tailText) {
        tailText = rest;
        tail.innerHTML = rest === '' ? '' : markdown.render(rest);
      }
    },
  };
}
