import * as v from 'valibot';
import { PageSchema } from '../../domain/core/core-support.js';

/** `{limit, cursor}` of every list tool: the core's own page schema (default 50, at most 200). */
export const PageArgs = v.strictObject({ ...PageSchema });

/**
 * One page of a list the core returns whole (mail services, emergency procedures, pending proposals),
 * keyed by `keyOf` in the list's own order. The cursor is the key of the last item of the previous page;
 * a cursor that is not in the list (the item went away) continues after the first greater key.
 */
export function pageOfList<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): { items: T[]; nextCursor: string | null } {
  const limit = page.limit ?? 50;
  let start = 0;
  if (page.cursor !== undefined && page.cursor !== '') {
    const cursor = page.cursor;
    const exact = items.findIndex((item) => keyOf(item) === cursor);
    start = exact >= 0 ? exact + 1 : items.findIndex((item) => keyOf(item) > cursor);
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + limit);
  const last = slice[slice.length - 1];
  return {
    items: slice,
    nextCursor: start + limit < items.length && last !== undefined ? keyOf(last) : null,
  };
}
