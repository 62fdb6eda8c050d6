import type { Page } from 'playwright-core';

/** What {@link layoutProblems} found on one page, each entry naming the element. */
export interface LayoutProblems {
  page?: string;
  /** The page itself scrolls sideways (by how many pixels). */
  overflow: string[];
  /** A box whose content spills out of it (or scrolls sideways) though it is not a box that scrolls by design. */
  spills: string[];
  /** A word laid out on two lines although it fits on one. */
  cut: string[];
  /** A tap target smaller than 24 × 24 px (WCAG 2.2 "target size, minimum"). */
  small: string[];
}

/**
 * Boxes that scroll sideways by design: preformatted text and logs, text areas, and the console's table wrapper
 * (`.table-scroll`). What is inside them may be wider than they are.
 */
export const SCROLLS_BY_DESIGN = 'pre, .log, textarea, .table-scroll, .xterm';

/**
 * Lays out the page as it is and reports what does not fit, as the operator would see it:
 *
 * - `overflow`: `document.scrollingElement.scrollWidth` is wider than the window;
 * - `spills`: an element's content is wider than its box (`scrollWidth > clientWidth`), unless the element or an
 *   ancestor matches {@link SCROLLS_BY_DESIGN};
 * - `cut`: a word cut in two ("ne ver") is laid out on two lines — its range has rects at two heights — by the
 *   method of the 1000 px card check (`connections-dialogs-browser.test.ts`). A word of fewer than 16 characters
 *   is never cut (a box too narrow for a short word is a layout fault); a longer token (a host name, URL, hash)
 *   may break only where it is wider than the block it is set in. A break after a hyphen is a line break, not
 *   a cut;
 * - `small` (when `tapTargets`): links, buttons, form fields, summaries and tabs under 24 px wide or high, but
 *   links inside running text (WCAG's inline exception); a field inside its `<label>` counts the label's box.
 */
export async function layoutProblems(page: Page, options: { tapTargets: boolean }): Promise<LayoutProblems> {
  return page.evaluate(
    ({ scrollsByDesign, tapTargets }) => {
      const name = (element: Element) => {
        const classes = [...element.classList].slice(0, 3).join('.');
        const id = element.id ? `#${element.id}` : '';
        const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
        return `${element.tagName.toLowerCase()}${id}${classes ? `.${classes}` : ''} "${text}"`;
      };
      const visible = (element: Element) => {
        const rect = element.getBoundingClientRect();
        if (rect.width < 2 || rect.height < 2) return false;
        const style = getComputedStyle(element);
        return style.visibility !== 'hidden' && !element.closest('[hidden], dialog:not([open])');
      };
      const found: { overflow: string[]; spills: string[]; cut: string[]; small: string[] } = {
        overflow: [],
        spills: [],
        cut: [],
        small: [],
      };
      // Off-screen panel messages skip layout (`content-visibility: auto`) until scrolled to: lay them out as the
      // operator will see them, so their words and boxes are measured too (CSSOM, which the CSP allows).
      for (const element of document.body.querySelectorAll<HTMLElement>('*')) {
        if (getComputedStyle(element).contentVisibility === 'auto')
          element.style.contentVisibility = 'visible';
      }
      const root = document.scrollingElement ?? document.documentElement;
      if (root.scrollWidth > window.innerWidth) {
        found.overflow.push(`the page is ${root.scrollWidth - window.innerWidth} px wider than the window`);
      }

      for (const element of document.body.querySelectorAll('*')) {
        if (!visible(element) || element.closest(scrollsByDesign)) continue;
        const style = getComputedStyle(element);
        if (style.display === 'inline' || style.display === 'contents') continue;
        if (element.scrollWidth > element.clientWidth + 1) {
          found.spills.push(
            `${name(element)}: ${element.scrollWidth} px of content in ${element.clientWidth} px`,
          );
        }
      }

      // Words: the text of every visible element, by the block it is set in.
      const block = (element: Element) => {
        let current: Element | null = element;
        while (current && getComputedStyle(current).display.startsWith('inline'))
          current = current.parentElement;
        return current ?? document.body;
      };
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || !visible(parent) || parent.closest('script, style, .visually-hidden')) continue;
        const text = node.textContent ?? '';
        // Most text sits on one line: its words cannot be cut, and measuring each would cost seconds a page.
        const whole = document.createRange();
        whole.selectNodeContents(node);
        if (new Set([...whole.getClientRects()].map((rect) => Math.round(rect.top))).size < 2) continue;
        // A token is what sits between spaces; its pieces end after - – — / ? (host names, paths, URLs), where a
        // line may break. A piece laid out on two lines is cut, unless the token is long (16 characters or more)
        // and wider than its block: then it must break somewhere.
        for (const token of text.matchAll(/\S+/g)) {
          const tokenRange = document.createRange();
          tokenRange.setStart(node, token.index);
          tokenRange.setEnd(node, token.index + token[0].length);
          const tokenRects = [...tokenRange.getClientRects()].filter((rect) => rect.width > 0);
          if (new Set(tokenRects.map((rect) => Math.round(rect.top))).size < 2) continue;
          const width = tokenRects.reduce((sum, rect) => sum + rect.width, 0);
          const container = block(parent);
          const box = getComputedStyle(container);
          const room =
            container.clientWidth - Number.parseFloat(box.paddingLeft) - Number.parseFloat(box.paddingRight);
          if ([...token[0]].length >= 16 && width > room) continue;
          for (const piece of token[0].matchAll(/[^-–—/?]+[-–—/?]*/g)) {
            const range = document.createRange();
            range.setStart(node, token.index + piece.index);
            range.setEnd(node, token.index + piece.index + piece[0].replace(/[-–—/?]+$/, '').length);
            const tops = new Set(
              [...range.getClientRects()]
                .filter((rect) => rect.width > 0)
                .map((rect) => Math.round(rect.top)),
            );
            if (tops.size > 1) {
              found.cut.push(
                `"${piece[0].slice(0, 40)}" of "${token[0].slice(0, 40)}" (${Math.round(width)} px in ${Math.round(room)}) in ${name(parent)}`,
              );
            }
          }
        }
      }

      if (tapTargets) {
        const targets = document.body.querySelectorAll(
          'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=tab], [role=button]',
        );
        for (const target of targets) {
          if (!visible(target) || target.closest('.visually-hidden, .skip-link')) continue;
          const style = getComputedStyle(target);
          if (target.tagName === 'A' && style.display === 'inline') {
            // A link in running text: its sentence is longer than it.
            const sentence = (target.parentElement?.textContent ?? '').trim().length;
            if (sentence > (target.textContent ?? '').trim().length) continue;
          }
          // A field inside its label is hit through the label too: the larger of the two boxes counts.
          const own = target.getBoundingClientRect();
          const label = target.closest('label')?.getBoundingClientRect();
          const width = Math.max(own.width, label?.width ?? 0);
          const height = Math.max(own.height, label?.height ?? 0);
          if (width < 23.5 || height < 23.5) {
            found.small.push(`${name(target)}: ${Math.round(width)} × ${Math.round(height)} px`);
          }
        }
      }
      // The same fault repeats on every row of a list: once is enough to read.
      return {
        overflow: found.overflow,
        spills: [...new Set(found.spills)],
        cut: [...new Set(found.cut)],
        small: [...new Set(found.small)],
      };
    },
    { scrollsByDesign: SCROLLS_BY_DESIGN, tapTargets: options.tapTargets },
  );
}
