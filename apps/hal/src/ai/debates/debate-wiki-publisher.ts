/**
 * Publishing debates to Wiki.js (SPEC §9 "Artifacts"), off the debate's path. The debate engine calls
 * {@link DebateWikiPublisher.publish} after every round and once at the end without waiting for it; this module then
 * brings the debate's pages (`debate-wiki-pages.ts`) up to date: `pages.create` the first time, `pages.update` by the
 * stored Wiki.js id after that, nothing for a page whose content did not change. A failure is stored per page
 * (`ai_debate_pages`), shown by `GET /debates/:id` (`publishing`) and by a HAL note in the debate room when publishing
 * starts failing (and another when it works again), and retried: at the next milestone, on a bounded backoff, and at
 * start-up. Work for one debate runs one attempt at a time; milestones that arrive meanwhile fold into one more
 * attempt, which publishes the debate as it is then (the store is the truth, not the milestone that woke us).
 *
 * The wiki's address and locale are settings (`wiki.url`, `wiki.locale`); its API key is the confidential setting
 * `wiki.api_token`, read from the vault for each attempt and sent only as the `Authorization` header: it is never
 * stored outside the vault, logged, audited or returned (errors are redacted by the vault before they are stored).
 */
import type { DebateMilestone } from '@hal-ai/rooms';
import type { RoomNote } from '@hal-ai/spec';
import type { Clock } from '../../domain/core/clock.js';
import { sha256Hex } from '../../platform/platform-hash.js';
import { createWikiClient, isWikiUrl, WikiError, wikiGraphqlEndpoint } from './debate-wiki-client.js';
import { type DebateWikiPage, type DebateWikiPageName, debateWikiPages } from './debate-wiki-pages.js';
import type { DebatePageRow, DebatePageStore } from './kysely-debate-page-store.js';

/** One page's publish state, as `GET /ops/api/ai/debates/:id` shows it. */
export interface DebatePublishedPage {
  page: DebateWikiPageName;
  path: string;
  /** The page's Wiki.js id once created. */
  wikiPageId: number | null;
  /** Wiki.js's short link to the page (`<wiki>/i/<id>`), once created. */
  url: string | null;
  /** `published`: the wiki has the latest content; `failed`: the last attempt failed (see `lastError`). */
  status: 'published' | 'failed';
  /** Failed attempts since the last success. */
  attempts: number;
  lastError: { code: string; message: string } | null;
  updatedAt: string;
}

/** A debate's publish state (`publishing` in `GET /ops/api/ai/debates/:id`). */
export interface DebatePublishState {
  /** Whether `wiki.url` and `wiki.api_token` are both set (without them nothing is published). */
  configured: boolean;
  pages: DebatePublishedPage[];
  /** When HAL tries the failed pages again by itself; null when none failed or the backoff is used up. */
  nextRetryAt: string | null;
}

/** Where the publisher reads its configuration and the debates. */
export interface DebateWikiPublisherDeps {
  pages: DebatePageStore;
  clock: Clock;
  /** The effective value of a non-confidential setting (`wiki.url`, `wiki.locale`). */
  setting(key: string): Promise<string | number | boolean | null>;
  /** The Wiki.js API key from the vault (`setting:wiki.api_token`), if set. */
  token(): Promise<string | undefined>;
  /** The debate as it is now (`DebateEngine.snapshot`). */
  snapshot(debateId: string): Promise<DebateMilestone>;
  /** A HAL note in the debate's room (`DebateEngine.postNote`). */
  note(debateId: string, note: RoomNote): Promise<void>;
  /** The vault's redaction: an error Wiki.js echoes can never carry a secret into the database. */
  redact<T>(value: T): T;
  logger: { warn(object: object, message: string): void };
}

/** The edges and timings tests and deployments may change. */
export interface DebateWikiPublisherOptions {
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Per Wiki.js call (default 20 s). */
  timeoutMs?: number;
  /**
   * Delays of the retries after consecutive failed attempts (default 15 s, 1 min, 5 min, 15 min); once used up, only
   * the next milestone or a restart tries again.
   */
  retryDelaysMs?: readonly number[];
  /** Runs `run` after `delayMs`; returns a cancel function. Default: an unref'd `setTimeout`. */
  schedule?(run: () => void, delayMs: number): () => void;
}

/** The publisher of a HAL. */
export interface DebateWikiPublisher {
  /** A milestone of the debate engine (its `onMilestone`): publishes the debate; resolves when that attempt ends. */
  publish(milestone: Pick<DebateMilestone, 'debate'>): Promise<void>;
  /** The debate's publish state. */
  state(debateId: string): Promise<DebatePublishState>;
  /** Start-up: tries again every debate whose last attempt failed. */
  retryFailed(): Promise<void>;
  /** Cancels the retries and every Wiki.js call in flight (shutdown), and waits for the attempts to end. */
  close(): Promise<void>;
}

const DEFAULT_RETRY_DELAYS_MS = [15_000, 60_000, 300_000, 900_000];

const defaultSchedule = (run: () => void, delayMs: number) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

interface WikiConfig {
  url: string;
  token: string;
  locale: string;
}

/** The hash that says whether a page changed since it was last published. */
function pageHash(page: { path: string; locale: string; title: string; content: string }): string {
  return sha256Hex(JSON.stringify([page.path, page.locale, page.title, page.content]));
}

/**
 * Creates the publisher.
 *
 * @example
 * const publisher = createDebateWikiPublisher({ pages, clock, setting, token, snapshot, note, redact, logger });
 * const debates = createDebateEngine({ ..., onMilestone: (milestone) => publisher.publish(milestone) });
 */
export function createDebateWikiPublisher(
  deps: DebateWikiPublisherDeps,
  options: DebateWikiPublisherOptions = {},
): DebateWikiPublisher {
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const schedule = options.schedule ?? defaultSchedule;
  const shutdown = new AbortController();
  /** Debates with an attempt due (a milestone or a retry arrived). */
  const due = new Set<string>();
  const running = new Map<string, Promise<void>>();
  const retries = new Map<string, { cancel: () => void; at: string }>();
  /** Consecutive failed attempts per debate (reset by a success). */
  const failures = new Map<string, number>();
  const nowIso = () => new Date(deps.clock.now()).toISOString();

  const readConfig = async (): Promise<WikiConfig | null> => {
    const url = await deps.setting('wiki.url');
    if (typeof url !== 'string' || url.trim() === '') return null;
    const token = await deps.token();
    if (!token) return null;
    const locale = await deps.setting('wiki.locale');
    return { url: url.trim(), token, locale: typeof locale === 'string' && locale ? locale : 'en' };
  };

  const errorInfo = (error: unknown) =>
    deps.redact({
      code: error instanceof WikiError ? error.code : 'wiki_unreachable',
      message: error instanceof Error ? error.message : String(error),
    });

  const note = async (debateId: string, said: RoomNote) => {
    try {
      await deps.note(debateId, said);
    } catch (error) {
      deps.logger.warn({ err: error, debateId }, 'could not post the Wiki.js note');
    }
  };

  const cancelRetry = (debateId: string) => {
    retries.get(debateId)?.cancel();
    retries.delete(debateId);
  };

  /** Stores one page's failed attempt; its Wiki.js id and the hash of what it last published are kept. */
  const saveFailure = (
    debateId: string,
    page: DebateWikiPage,
    row: DebatePageRow | undefined,
    info: { code: string; message: string },
  ) =>
    deps.pages.save({
      debateId,
      page: page.name,
      path: page.path,
      wikiPageId: row?.wikiPageId ?? null,
      status: 'failed',
      contentHash: row?.contentHash ?? null,
      attempts: (row?.attempts ?? 0) + 1,
      lastError: info,
      updatedAt: nowIso(),
    });

  /** One attempt: every page of the debate brought up to date; failures stored per page. */
  const attempt = async (debateId: string) => {
    const config = await readConfig();
    if (!config) return;
    const pages = debateWikiPages(await deps.snapshot(debateId), config.locale);
    const rows = await deps.pages.list(debateId);
    const rowOf = (page: DebateWikiPage) => rows.find((entry) => entry.page === page.name);
    const wasFailing = rows.some((row) => row.status === 'failed');
    if (!isWikiUrl(config.url)) {
      // A configuration that cannot work: every page says so, and nothing is sent.
      const info = { code: 'wiki_url_invalid', message: 'wiki.url is not an http(s) address' };
      for (const page of pages) await saveFailure(debateId, page, rowOf(page), info);
      await settle(debateId, wasFailing, info);
      return;
    }
    const client = createWikiClient({
      url: config.url,
      token: config.token,
      signal: shutdown.signal,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    let failed: { code: string; message: string } | null = null;
    for (const page of pages) {
      if (shutdown.signal.aborted) return;
      const row = rowOf(page);
      const hash = pageHash(page);
      if (row?.status === 'published' && row.contentHash === hash) continue;
      try {
        let id = row?.wikiPageId ?? null;
        if (id === null) id = (await client.createPage(page)).id;
        else await client.updatePage(id, page);
        await deps.pages.save({
          debateId,
          page: page.name,
          path: page.path,
          wikiPageId: id,
          status: 'published',
          contentHash: hash,
          attempts: 0,
          lastError: null,
          updatedAt: nowIso(),
        });
      } catch (error) {
        // A shutdown cancelled the call: not the wiki's failure.
        if (shutdown.signal.aborted) return;
        const info = errorInfo(error);
        failed ??= info;
        await saveFailure(debateId, page, row, info);
      }
    }
    await settle(debateId, wasFailing, failed);
  };

  /** After an attempt: the backoff, and a note when publishing starts failing or works again. */
  const settle = async (
    debateId: string,
    wasFailing: boolean,
    failed: { code: string; message: string } | null,
  ) => {
    if (!failed) {
      failures.delete(debateId);
      if (wasFailing) await note(debateId, { code: 'wiki_published', params: {} });
      return;
    }
    const count = (failures.get(debateId) ?? 0) + 1;
    failures.set(debateId, count);
    const delay = retryDelays[count - 1];
    if (delay !== undefined && !shutdown.signal.aborted) {
      cancelRetry(debateId);
      const at = new Date(deps.clock.now() + delay).toISOString();
      retries.set(debateId, {
        at,
        cancel: schedule(() => {
          retries.delete(debateId);
          void trigger(debateId);
        }, delay),
      });
    }
    if (!wasFailing) {
      const error = { error: failed.code, message: failed.message };
      await note(
        debateId,
        delay !== undefined
          ? { code: 'wiki_publish_failed', params: { ...error, seconds: Math.round(delay / 1000) } }
          : { code: 'wiki_publish_failed_later', params: error },
      );
    }
  };

  /** Runs attempts for a debate until none is due; a trigger while one runs asks for one more. */
  const trigger = (debateId: string): Promise<void> => {
    if (shutdown.signal.aborted) return Promise.resolve();
    due.add(debateId);
    cancelRetry(debateId);
    const current = running.get(debateId);
    if (current) return current;
    const loop = (async () => {
      while (due.delete(debateId)) {
        try {
          await attempt(debateId);
        } catch (error) {
          deps.logger.warn({ err: error, debateId }, 'Wiki.js publishing failed unexpectedly');
        }
      }
    })().finally(() => {
      running.delete(debateId);
      // A trigger that arrived between the last check and here still gets its attempt.
      if (due.has(debateId)) void trigger(debateId);
    });
    running.set(debateId, loop);
    return loop;
  };

  return {
    publish: (milestone) => trigger(milestone.debate.id),
    async state(debateId) {
      const config = await readConfig();
      const base = config ? wikiGraphqlEndpoint(config.url).replace(/\/graphql$/, '') : null;
      const pages = (await deps.pages.list(debateId)).map(
        (row): DebatePublishedPage => ({
          page: row.page,
          path: row.path,
          wikiPageId: row.wikiPageId,
          url: base && row.wikiPageId !== null ? `${base}/i/${row.wikiPageId}` : null,
          status: row.status,
          attempts: row.attempts,
          lastError: row.lastError,
          updatedAt: row.updatedAt,
        }),
      );
      return { configured: config !== null, pages, nextRetryAt: retries.get(debateId)?.at ?? null };
    },
    async retryFailed() {
      for (const debateId of await deps.pages.debatesWithFailures()) void trigger(debateId);
    },
    async close() {
      shutdown.abort();
      for (const debateId of [...retries.keys()]) cancelRetry(debateId);
      await Promise.allSettled([...running.values()]);
    },
  };
}
