import { LRUCache } from 'lru-cache';
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
  /** Most entries held; the least recently used goes first (default 50). */
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
  // `ttlResolution: 0` reads the clock on every check (lru-cache otherwise keeps one reading for a millisecond).
  const entries = new LRUCache<string, WebPage>({
    max: maxEntries,
    ttl: ttlMs,
    ttlResolution: 0,
    perf: { now },
  });
  return {
    get: (key) => entries.get(key),
    set(key, page) {
      entries.set(key, page);
    },
    get size() {
      return entries.size;
    },
  };
}
