import type { WebPage } from './web-page.js';

/** A cache of fetched pages, keyed by normalised URL. Owned by the host and handed to the fetcher. */
export interface WebCache {
  /** The page stored under `key`, if it is still fresh. */
  get(key: string): WebPage | undefined;
  /** Stores a successful fetch (failures are never stored). */
  set(key: string, page: WebPage): void;
  /** How many entries are held (fresh or not yet swept). */
  readonly size: number;
}

/** Settings of {@link createWebCache}. */
export interface WebCacheSettings {
  /** How long a page stays fresh (default 5 minutes). */
  ttlMs?: number;
  /** Most entries held; the oldest goes first (default 50). */
  maxEntries?: number;
  /** Milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/**
 * A small TTL cache of successful fetches (SPEC §10: 5 minutes, at most 50 entries). The same link in two
 * messages, or a model's `web_fetch` of a page the operator just linked, costs one fetch.
 *
 * @example
 * const cache = createWebCache();
 * const fetcher = createWebFetcher({ cache });
 */
export function createWebCache(settings: WebCacheSettings = {}): WebCache {
  const ttlMs = settings.ttlMs ?? 5 * 60_000;
  const maxEntries = settings.maxEntries ?? 50;
  const now = settings.now ?? Date.now;
  const entries = new Map<string, { page: WebPage; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.page;
    },
    set(key, page) {
      entries.delete(key);
      entries.set(key, { page, expiresAt: now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    get size() {
      return entries.size;
    },
  };
}
