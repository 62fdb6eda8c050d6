import { describe, expect, it } from 'vitest';
import { createTestWindow } from './panel-dom.test-support.js';
import { createMarkdownRenderer } from './panel-markdown.js';

/** markdown-it's own XSS cases and classic DOMPurify payloads. */
const PAYLOADS = [
  '<img src=x onerror=alert(1)>',
  '<script>window.__pwned = 1</script>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '[a](javascript:alert(1))',
  '[a](JAVASCRIPT:alert(1))',
  '[a](javascript&#58;alert(1))',
  '[a](  javascript:alert(1))',
  '[a](vbscript:alert(1))',
  '[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![x](javascript:alert(1))',
  '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
  '<form><button formaction=javascript:alert(1)>x</button></form>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<details open ontoggle=alert(1)>',
  '[x](<javascript:alert(1)>)',
  '<http://x"onmouseover="alert(1)>',
  'https://example.test/"onmouseover="alert(1)',
  '`<img src=x onerror=alert(1)>`',
  '```\n<script>alert(1)</script>\n```',
];

const inspectWindow = createTestWindow();

function inspect(html: string) {
  const window = inspectWindow;
  const container = window.document.createElement('div');
  container.innerHTML = html;
  const elements = [...container.querySelectorAll('*')];
  return {
    container,
    handlers: elements.flatMap((element) =>
      [...element.attributes].filter((attribute) => /^on/i.test(attribute.name)).map((a) => a.name),
    ),
    scripts: container.querySelectorAll('script, iframe, object, embed, style').length,
    badUrls: elements.flatMap((element) =>
      ['href', 'src', 'xlink:href', 'action', 'formaction']
        .map((name) => element.getAttribute(name))
        .filter((value): value is string => value !== null && /^\s*(javascript|vbscript|data):/i.test(value)),
    ),
  };
}

describe('createMarkdownRenderer', () => {
  const markdown = createMarkdownRenderer({ window: createTestWindow() as never });

  it('renders markdown: emphasis, lists, code blocks, linkified URLs', () => {
    const html = markdown.render(
      '**bold** and `code`\n\n- one\n- two\n\n```ts\nconst a = 1;\n```\n\nsee https://example.test/x',
    );
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<li>one</li>');
    expect(html).toMatch(/<pre><code class="language-ts">const a = 1;\n<\/code><\/pre>/);
    expect(html).toContain('href="https://example.test/x"');
  });

  it('gives links rel="noopener noreferrer" and target="_blank"', () => {
    const { container } = inspect(markdown.render('[docs](https://example.test/docs)'));
    const link = container.querySelector('a');
    expect(link?.getAttribute('href')).toBe('https://example.test/docs');
    expect(link?.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link?.getAttribute('target')).toBe('_blank');
  });

  it('shows raw HTML as text, never as markup', () => {
    const html = markdown.render('<b>not bold</b>');
    expect(html).toContain('&lt;b&gt;not bold&lt;/b&gt;');
    expect(html).not.toContain('<b>');
  });

  for (const payload of PAYLOADS) {
    it(`leaves no handler, script or javascript: URL for ${JSON.stringify(payload)}`, () => {
      const result = inspect(markdown.render(payload));
      expect(result.handlers).toEqual([]);
      expect(result.scripts).toBe(0);
      expect(result.badUrls).toEqual([]);
    });
    it(`sanitises the raw HTML of ${JSON.stringify(payload)} too`, () => {
      const result = inspect(markdown.sanitize(payload));
      expect(result.handlers).toEqual([]);
      expect(result.scripts).toBe(0);
      expect(result.badUrls).toEqual([]);
    });
  }

  it('keeps safe raw HTML structure when sanitising (the sanitiser is not a blanket escape)', () => {
    const { container } = inspect(
      markdown.sanitize('<p>ok <a href="javascript:alert(1)" onclick="x()">link</a></p>'),
    );
    const link = container.querySelector('a');
    expect(container.querySelector('p')?.textContent).toBe('ok link');
    expect(link?.hasAttribute('href')).toBe(false);
    expect(link?.getAttribute('rel')).toBe('noopener noreferrer');
  });
});
