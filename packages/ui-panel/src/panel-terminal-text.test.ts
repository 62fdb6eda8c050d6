import { describe, expect, it } from 'vitest';
import {
  extractTerminalUrls,
  joinWrappedRows,
  type TerminalRow,
  terminalKeyDecision,
  terminalPlainText,
} from './panel-terminal-text.js';

/** Rows as a terminal of `cols` columns soft-wraps `lines`. */
function wrap(lines: string[], cols: number): TerminalRow[] {
  const rows: TerminalRow[] = [];
  for (const line of lines) {
    if (line.length === 0) rows.push({ text: '', wrapped: false });
    for (let start = 0; start < line.length; start += cols) {
      rows.push({ text: line.slice(start, start + cols), wrapped: start > 0 });
    }
  }
  return rows;
}

const LONG_URL = `https://claude.ai/oauth/authorize?code=true&client_id=abc&redirect_uri=https%3A%2F%2Fconsole.anthropic.com%2Foauth%2Fcode%2Fcallback&state=${'s'.repeat(90)}`;

describe('terminal text', () => {
  it('finds a URL wrapped over several rows whole', () => {
    const rows = wrap(['Visit this URL to log in:', '', LONG_URL, '', 'Paste code here if prompted >'], 40);
    expect(rows.filter((row) => row.wrapped).length).toBeGreaterThan(3);
    expect(extractTerminalUrls([rows])).toEqual([LONG_URL]);
    expect(joinWrappedRows(rows)).toContain(LONG_URL);
  });

  it('drops box-drawing frames and trailing punctuation, keeps balanced parentheses, removes duplicates', () => {
    const screen = wrap(
      [
        '╭──────────────────────────────╮',
        '│ https://example.com/device │',
        '╰──────────────────────────────╯',
        'Open https://example.com/device.',
        'See (https://en.wikipedia.org/wiki/Foo_(bar)).',
        'not a link: javascript:alert(1) ftp://example.com/x',
      ],
      80,
    );
    const scrollback = wrap(['First: https://example.com/first,'], 80);
    expect(extractTerminalUrls([scrollback, screen])).toEqual([
      'https://example.com/first',
      'https://example.com/device',
      'https://en.wikipedia.org/wiki/Foo_(bar)',
    ]);
  });

  it('plain text joins wrapped rows and drops trailing blank lines', () => {
    const rows = wrap(['abcdefghij', 'k'], 4);
    rows.push({ text: '   ', wrapped: false }, { text: '', wrapped: false });
    expect(terminalPlainText(rows)).toBe('abcdefghij\nk');
  });

  it('copy rules: Ctrl+C copies only with a selection; Ctrl+Shift+C and Ctrl+Insert always; Ctrl+V/Shift+Insert paste', () => {
    const key = (
      key: string,
      modifiers: Partial<Record<'ctrlKey' | 'shiftKey' | 'altKey' | 'metaKey', boolean>>,
    ) => ({
      key,
      ctrlKey: false,
      shiftKey: false,
      altKey: false,
      metaKey: false,
      ...modifiers,
    });
    expect(terminalKeyDecision(key('c', { ctrlKey: true }), true)).toBe('copy');
    expect(terminalKeyDecision(key('c', { ctrlKey: true }), false)).toBe('send');
    expect(terminalKeyDecision(key('C', { ctrlKey: true, shiftKey: true }), false)).toBe('copy');
    expect(terminalKeyDecision(key('Insert', { ctrlKey: true }), false)).toBe('copy');
    expect(terminalKeyDecision(key('v', { ctrlKey: true }), false)).toBe('paste');
    expect(terminalKeyDecision(key('Insert', { shiftKey: true }), false)).toBe('paste');
    expect(terminalKeyDecision(key('a', {}), true)).toBe('send');
    expect(terminalKeyDecision(key('d', { ctrlKey: true }), true)).toBe('send');
  });
});
