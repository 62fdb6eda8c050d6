import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Where the keyboard focus is: its tag, the open dialog it is in, the card it belongs to and its `data-act`. */
export interface FocusPlace {
  tag: string | null;
  dialog: string | null;
  action: string | null;
  connection: string | null;
  act: string | null;
  className: string | null;
}

/** Reads {@link FocusPlace} of the page now. */
export function focusNow(page: Page): Promise<FocusPlace> {
  return page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    return {
      tag: active?.tagName.toLowerCase() ?? null,
      dialog: active?.closest('dialog[open]')?.className ?? null,
      action: active?.closest<HTMLElement>('[data-action-id]')?.dataset.actionId ?? null,
      connection: active?.closest<HTMLElement>('[data-connection-id]')?.dataset.connectionId ?? null,
      act: active?.dataset.act ?? null,
      className: typeof active?.className === 'string' ? active.className : null,
    };
  });
}

/**
 * Presses `key` (Tab by default) until the focused element matches `selector`, as a keyboard user walks the
 * page; fails after `limit` presses. Returns how many presses it took. The page is never given focus by a
 * script: what this reaches, an operator reaches.
 */
export async function pressUntil(
  page: Page,
  selector: string,
  options: { key?: string; limit?: number } = {},
): Promise<number> {
  const { key = 'Tab', limit = 120 } = options;
  for (let press = 1; press <= limit; press += 1) {
    await page.keyboard.press(key);
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) === true, selector))
      return press;
  }
  const where = await focusNow(page);
  throw new Error(`${key} × ${limit} never reached ${selector}; the focus is on ${JSON.stringify(where)}`);
}

/** Starts keyboard navigation from the top of the page, as after a load: nothing has the focus. */
export async function startFromTop(page: Page): Promise<void> {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.getSelection()?.removeAllRanges();
  });
  await page.keyboard.press('Escape');
}

/**
 * Tab and Shift+Tab more times than the open dialog has controls: the focus never leaves it (behind a modal
 * dialog the page is inert, so an untrapped Tab lands on the browser's own UI or the document, outside it).
 */
export async function expectTrapped(page: Page, dialogClass: string): Promise<void> {
  const controls = await page
    .locator(`dialog[open].${dialogClass}`)
    .evaluate(
      (dialog) =>
        [
          ...dialog.querySelectorAll(
            'a[href], button:not([disabled]), input:not([disabled]), textarea, select',
          ),
        ].length,
    );
  expect(controls).toBeGreaterThan(1);
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let press = 0; press < controls + 2; press += 1) {
      await page.keyboard.press(key);
      const where = await focusNow(page);
      expect({ key, press, dialog: where.dialog }).toEqual({
        key,
        press,
        dialog: expect.stringContaining(dialogClass),
      });
    }
  }
}
