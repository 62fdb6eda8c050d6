import createDOMPurify, { type WindowLike } from 'dompurify';
import MarkdownIt from 'markdown-it';

/** Settings of {@link createMarkdownRenderer}. */
export interface MarkdownRendererSettings {
  /** The window DOMPurify sanitises in (default: the global `window`; tests pass a jsdom window). */
  window?: WindowLike;
}

/** Renders untrusted model output to safe HTML. */
export interface MarkdownRenderer {
  /** Markdown → sanitised HTML string (no raw HTML, no event handlers, no `javascript:` links). */
  render(markdown: string): string;
  /** Sanitises an HTML string with the same rules (for HTML that did not come from markdown-it). */
  sanitize(html: string): string;
}

const SAFE_LINK = /^(https?:|mailto:|#|\/(?!\/))/i;

/**
 * Builds the markdown renderer of the panel: markdown-it with `html: false` and linkify, its output
 * passed through DOMPurify. Model output is untrusted (SPEC §11.7), so even what markdown-it lets
 * through is sanitised again; links open in a new tab with `rel="noopener noreferrer"` and only
 * `http(s):`, `mailto:` and same-site links survive.
 *
 * @example
 * const markdown = createMarkdownRenderer();
 * element.innerHTML = markdown.render(message.text);
 */
export function createMarkdownRenderer(settings: MarkdownRendererSettings = {}): MarkdownRenderer {
  const win = settings.window ?? (globalThis as unknown as { window: WindowLike }).window;
  const purify = createDOMPurify(win);
  const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      const href = node.getAttribute('href');
      if (href === null || !SAFE_LINK.test(href.trim())) node.removeAttribute('href');
      node.setAttribute('rel', 'noopener noreferrer');
      node.setAttribute('target', '_blank');
    }
    if (node.nodeName === 'IMG') {
      // Images could beacon out or carry data URLs: show the alt text's link instead.
      node.removeAttribute('src');
    }
  });
  const config = {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style', 'srcset', 'formaction', 'action'],
    ALLOW_DATA_ATTR: false,
    ADD_ATTR: ['target'],
  };
  const sanitize = (html: string) => purify.sanitize(html, config) as unknown as string;
  return {
    render: (text) => sanitize(markdown.render(text)),
    sanitize,
  };
}
