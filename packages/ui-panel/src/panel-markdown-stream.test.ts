import { describe, expect, it } from 'vitest';
import { createTestWindow } from './panel-dom.test-support.js';
import { createMarkdownRenderer, type MarkdownRenderer } from './panel-markdown.js';
import { completedBlocksEnd, createStreamingMarkdown } from './panel-markdown-stream.js';

describe('completedBlocksEnd', () => {
  it('ends the completed part at the last blank line before a new top-level block', () => {
    expect(completedBlocksEnd('one')).toBe(0);
    expect(completedBlocksEnd('one\n\n')).toBe(0);
    expect(completedBlocksEnd('one\n\ntwo')).toBe(5);
    expect(completedBlocksEnd('one\n\ntwo\n\nthree\n', 5)).toBe(10);
  });

  it('never splits inside a code fence, a list continuation or indented code', () => {
    const fenced = 'a\n\n```js\nx\n\ny\n';
    expect(completedBlocksEnd(fenced)).toBe(3);
    expect(completedBlocksEnd(`${fenced}\`\`\`\n\nb`)).toBe(fenced.length + 5);
    expect(completedBlocksEnd('- a\n\n  more of a\n')).toBe(0);
    expect(completedBlocksEnd('text\n\n    code\n')).toBe(0);
  });
});

/** A renderer that counts how much text it parsed. */
function countingRenderer(window: ReturnType<typeof createTestWindow>) {
  const real = createMarkdownRenderer({ window: window as never });
  const counter = { calls: 0, chars: 0 };
  const renderer: MarkdownRenderer = {
    render(text) {
      counter.calls += 1;
      counter.chars += text.length;
      return real.render(text);
    },
    sanitize: real.sanitize,
  };
  return { renderer, counter };
}

describe('createStreamingMarkdown', () => {
  it('parses each completed block once and only the tail again, so work grows linearly', () => {
    const window = createTestWindow();
    const { renderer, counter } = countingRenderer(window);
    const live = createStreamingMarkdown(window.document, renderer);
    let text = '';
    for (let paragraph = 0; paragraph < 20; paragraph += 1) {
      for (let chunk = 0; chunk < 10; chunk += 1) {
        text += `word${chunk} `;
        live.update(text);
      }
      text += '\n\n';
      live.update(text);
    }
    // Re-parsing from the start on every batch would be ~200 batches × 1 500 / 2 ≈ 150 000 characters.
    expect(counter.chars).toBeLessThan(text.length * 8);
    expect(live.element.querySelectorAll('.hal-md-part p')).toHaveLength(19);
    expect(live.element.textContent?.replace(/\s+/g, ' ').trim()).toBe(text.replace(/\s+/g, ' ').trim());
  });

  it('leaves completed nodes untouched while the tail grows (a selection in them survives)', () => {
    const window = createTestWindow();
    const live = createStreamingMarkdown(
      window.document,
      createMarkdownRenderer({ window: window as never }),
    );
    live.update('first **bold**\n\nsec');
    const first = live.element.querySelector('.hal-md-part strong');
    live.update('first **bold**\n\nsecond *part*');
    expect(live.element.querySelector('.hal-md-part strong')).toBe(first);
    expect(live.element.querySelector('.hal-md-tail em')?.textContent).toBe('part');
  });

  it('starts over when the text does not extend what it showed, and stays sanitised', () => {
    const window = createTestWindow();
    const live = createStreamingMarkdown(
      window.document,
      createMarkdownRenderer({ window: window as never }),
    );
    live.update('old\n\nold tail');
    live.update('new <img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))');
    expect(live.element.textContent).not.toContain('old');
    expect(live.element.querySelector('img')).toBeNull();
    expect(live.element.querySelector('a[href^=javascript]')).toBeNull();
  });
});
