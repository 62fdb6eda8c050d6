/**
 * Text out of a terminal's buffer, for "copy all", the text view and the detected-URL list (SPEC §8). Pure
 * functions over rows, so they are tested without a browser; `panel-terminal.ts` reads the rows from xterm.js.
 */

/** One buffer row: its text and whether it continues the previous row (soft-wrapped by the terminal width). */
export interface TerminalRow {
  text: string;
  /** xterm's `IBufferLine.isWrapped`: this row is the continuation of the one before. */
  wrapped: boolean;
}

/** The logical lines of a buffer: every soft-wrapped row joined back onto the line it continues. */
export function joinWrappedRows(rows: readonly TerminalRow[]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    if (row.wrapped && lines.length > 0) lines[lines.length - 1] += row.text;
    else lines.push(row.text);
  }
  return lines.map((line) => line.replace(/\s+$/u, ''));
}

/** The whole buffer as plain text (wrapped rows joined, trailing blank lines dropped). */
export function terminalPlainText(rows: readonly TerminalRow[]): string {
  return joinWrappedRows(rows).join('\n').replace(/\n+$/u, '');
}

// Box-drawing and block characters frame TUI panels; they are never part of a URL.
const FRAME_CHARACTERS = /[\u2500-\u259f]/gu;
const URL_PATTERN = /https?:\/\/[^\s"'<>`\\^{}|]+/giu;
const TRAILING_PUNCTUATION = /[.,;:!?'")\]}>]+$/u;

/**
 * The http(s) URLs in the given buffers (scrollback and the alternate screen), in order of appearance, each
 * once: a URL wrapped over several rows is found whole, box-drawing characters around it and trailing
 * punctuation are dropped. A closing parenthesis stays when the URL opened one.
 *
 * @example
 * extractTerminalUrls([[{ text: 'see https://example.com/lo', wrapped: false }, { text: 'gin.', wrapped: true }]]);
 * // → ['https://example.com/login']
 */
export function extractTerminalUrls(buffers: ReadonlyArray<readonly TerminalRow[]>): string[] {
  const found = new Set<string>();
  for (const rows of buffers) {
    for (const line of joinWrappedRows(rows)) {
      for (const match of line.replace(FRAME_CHARACTERS, ' ').matchAll(URL_PATTERN)) {
        const trimmed = match[0].replace(TRAILING_PUNCTUATION, '');
        // Keep a ')' that closes a '(' inside the URL (Wikipedia-style paths).
        const closes =
          match[0].slice(trimmed.length).startsWith(')') && count(trimmed, '(') > count(trimmed, ')');
        const url = closes ? `${trimmed})` : trimmed;
        if (/^https?:\/\/[^/?#]+/iu.test(url)) found.add(url);
      }
    }
  }
  return [...found];
}

function count(text: string, character: string): number {
  return text.split(character).length - 1;
}

/** What a key press in a focused terminal does under SPEC §8's copy rules. */
export type TerminalKeyDecision = 'copy' | 'paste' | 'send';

/**
 * SPEC §8: with a selection Ctrl+C copies (otherwise it is ^C for the program); Ctrl+Shift+C and Ctrl+Insert
 * always copy; Ctrl+V and Shift+Insert paste; everything else goes to the PTY.
 */
export function terminalKeyDecision(
  key: { key: string; ctrlKey: boolean; shiftKey: boolean; altKey: boolean; metaKey: boolean },
  hasSelection: boolean,
): TerminalKeyDecision {
  const letter = key.key.toLowerCase();
  if (key.altKey) return 'send';
  const control = key.ctrlKey || key.metaKey;
  if (control && key.shiftKey && letter === 'c') return 'copy';
  if (control && !key.shiftKey && letter === 'c') return hasSelection ? 'copy' : 'send';
  if (control && key.key === 'Insert') return 'copy';
  if (control && !key.shiftKey && letter === 'v') return 'paste';
  if (key.shiftKey && !control && key.key === 'Insert') return 'paste';
  return 'send';
}
