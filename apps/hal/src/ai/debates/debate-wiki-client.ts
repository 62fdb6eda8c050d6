/**
 * A small client of Wiki.js 2.x's GraphQL API (SPEC §9 "Artifacts"): `pages { create(...) }` and
 * `pages { update(id: ...) }`, both answering `{responseResult {succeeded errorCode slug message}, page {id}}`, with
 * the API key as `Authorization: Bearer <token>`. Wiki.js answers HTTP 200 for most failures: a refused call has
 * `succeeded: false` (its own error code and slug, e.g. `6002 PageDuplicateCreate`), a missing permission comes back
 * as a GraphQL `errors` entry. Each failure becomes a {@link WikiError} with a stable code the debate shows; the
 * token is never part of one, and neither is the server's free text: `wiki.url` can be any address, so a message
 * keeps the HTTP status, Wiki.js's numeric code and identifier-shaped words (`PageDuplicateCreate`, `Forbidden`)
 * only — an internal page's body or a socket's `connect ECONNREFUSED 10.0.0.7:3000` never reaches the debate's
 * publish state, its room note or the models that read the room.
 */

import { errorTypeToken } from '@hal-ai/providers';

/** The GraphQL document of `pages.create` (every argument Wiki.js requires, as variables). */
export const WIKI_CREATE_PAGE = `mutation HalCreatePage($content: String!, $description: String!, $editor: String!, $isPublished: Boolean!, $isPrivate: Boolean!, $locale: String!, $path: String!, $tags: [String]!, $title: String!) {
  pages {
    create(content: $content, description: $description, editor: $editor, isPublished: $isPublished, isPrivate: $isPrivate, locale: $locale, path: $path, tags: $tags, title: $title) {
      responseResult { succeeded errorCode slug message }
      page { id }
    }
  }
}`;

/** The GraphQL document of `pages.update`: the page by its Wiki.js id, its content and title replaced. */
export const WIKI_UPDATE_PAGE = `mutation HalUpdatePage($id: Int!, $content: String!, $description: String!, $editor: String!, $isPublished: Boolean!, $locale: String!, $path: String!, $tags: [String]!, $title: String!) {
  pages {
    update(id: $id, content: $content, description: $description, editor: $editor, isPublished: $isPublished, locale: $locale, path: $path, tags: $tags, title: $title) {
      responseResult { succeeded errorCode slug message }
    }
  }
}`;

/** Why a Wiki.js call failed, as the debate's publish state shows it. */
export type WikiErrorCode =
  /** No answer (refused, reset, timed out). */
  | 'wiki_unreachable'
  /** An HTTP status other than 200. */
  | 'wiki_http_error'
  /** A GraphQL `errors` answer (e.g. `Forbidden`: the key lacks `write:pages`). */
  | 'wiki_graphql_error'
  /** `responseResult.succeeded: false` (the Wiki.js error code and slug are in the message). */
  | 'wiki_rejected'
  /** An answer that is not Wiki.js's shape. */
  | 'wiki_bad_response';

/** A failed Wiki.js call; `wikiErrorCode` is Wiki.js's own (e.g. 6002) when it gave one. */
export class WikiError extends Error {
  readonly code: WikiErrorCode;
  readonly wikiErrorCode: number | undefined;
  constructor(code: WikiErrorCode, message: string, wikiErrorCode?: number) {
    super(message);
    this.name = 'WikiError';
    this.code = code;
    this.wikiErrorCode = wikiErrorCode;
  }
}

/** Wiki.js's error code for a create whose path already holds a page. */
export const WIKI_PAGE_DUPLICATE = 6002;

/** One page as HAL writes it (Markdown editor, published, public). */
export interface WikiPageInput {
  /** Without a leading slash, e.g. `debates/<slug>/round-log`. */
  path: string;
  locale: string;
  title: string;
  description: string;
  content: string;
  tags: string[];
}

/** Settings of {@link createWikiClient}. */
export interface WikiClientSettings {
  /** The wiki's address (`https://wiki.example.com`), or its GraphQL endpoint (`…/graphql`). */
  url: string;
  /** The Wiki.js API key. */
  token: string;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Per call (default 20 s): a stalled wiki never holds a publisher for long. */
  timeoutMs?: number;
  /** Aborts every call in flight (shutdown). */
  signal?: AbortSignal;
}

/** The two calls HAL makes. */
export interface WikiClient {
  /** Creates the page; resolves to its Wiki.js id. */
  createPage(page: WikiPageInput): Promise<{ id: number }>;
  /** Replaces the content (and title, path, tags) of page `id`. */
  updatePage(id: number, page: WikiPageInput): Promise<void>;
}

/** The GraphQL endpoint of a wiki address: `<url>/graphql`, unless the address already names it. */
export function wikiGraphqlEndpoint(url: string): string {
  const base = url.trim().replace(/\/+$/, '');
  return base.endsWith('/graphql') ? base : `${base}/graphql`;
}

/** Whether `url` is an http(s) address HAL may publish to. */
export function isWikiUrl(url: string): boolean {
  try {
    const parsed = new URL(url.trim());
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.username === '';
  } catch {
    return false;
  }
}

// Only `succeeded` is checked: the other fields are the server's and are read as `unknown` would be.
interface ResponseResult {
  succeeded: boolean;
  errorCode: unknown;
  slug: unknown;
}

function isResponseResult(value: unknown): value is ResponseResult {
  const result = value as Partial<ResponseResult> | null;
  return typeof result === 'object' && result !== null && typeof result.succeeded === 'boolean';
}

/**
 * The identifier-shaped words of GraphQL `errors` (a one-word message such as `Forbidden`, else an Apollo
 * `extensions.code`), at most three, as ` (Forbidden)`; empty when there is none. Sentences are left out.
 */
function graphqlWords(errors: readonly { message?: unknown; extensions?: { code?: unknown } }[]): string {
  const words = new Set<string>();
  for (const entry of errors.slice(0, 10)) {
    const code = entry?.extensions?.code;
    const word =
      errorTypeToken(typeof entry?.message === 'string' ? entry.message : undefined) ??
      errorTypeToken(typeof code === 'string' ? code : undefined);
    if (word) words.add(word);
  }
  const kept = [...words].slice(0, 3);
  return kept.length > 0 ? ` (${kept.join('; ')})` : '';
}

/**
 * Creates the client. Calls are plain `fetch` POSTs of `{query, variables}`; nothing is retried here (the publisher
 * decides when to try again).
 *
 * @example
 * const wiki = createWikiClient({ url: 'https://wiki.example.com', token });
 * const { id } = await wiki.createPage({ path: 'debates/tabs-1a2b3c/round-log', locale: 'en', title, description, content, tags: ['hal'] });
 * await wiki.updatePage(id, { ...page, content: next });
 */
export function createWikiClient(settings: WikiClientSettings): WikiClient {
  const endpoint = wikiGraphqlEndpoint(settings.url);
  const fetchImpl = settings.fetch ?? fetch;
  const timeoutMs = settings.timeoutMs ?? 20_000;

  const call = async (query: string, variables: Record<string, unknown>, field: 'create' | 'update') => {
    const signals = [AbortSignal.timeout(timeoutMs), ...(settings.signal ? [settings.signal] : [])];
    let response: Response;
    try {
      response = await fetchImpl(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${settings.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.any(signals),
      });
    } catch {
      // One fixed sentence for refused, reset, unresolvable and timed out alike: the socket's words name
      // addresses and tell open ports from closed ones.
      throw new WikiError('wiki_unreachable', 'Wiki.js did not answer');
    }
    const text = await response.text().catch(() => '');
    if (response.status !== 200) {
      throw new WikiError('wiki_http_error', `Wiki.js answered HTTP ${response.status}`);
    }
    let body: {
      data?: { pages?: Record<string, unknown> | null } | null;
      errors?: { message?: unknown; extensions?: { code?: unknown } }[];
    };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new WikiError('wiki_bad_response', 'Wiki.js answered something that is not JSON');
    }
    if (Array.isArray(body.errors) && body.errors.length > 0) {
      throw new WikiError('wiki_graphql_error', `Wiki.js refused the request${graphqlWords(body.errors)}`);
    }
    const payload = body.data?.pages?.[field] as
      | { responseResult?: unknown; page?: { id?: unknown } }
      | undefined;
    const result = payload?.responseResult;
    if (!isResponseResult(result)) {
      throw new WikiError('wiki_bad_response', `Wiki.js answered without pages.${field}.responseResult`);
    }
    if (!result.succeeded) {
      // Wiki.js's number and slug say what went wrong (`6002 PageDuplicateCreate`); its `message` is prose.
      const errorCode =
        typeof result.errorCode === 'number' && Number.isInteger(result.errorCode)
          ? result.errorCode
          : undefined;
      const slug = errorTypeToken(typeof result.slug === 'string' ? result.slug : undefined);
      const said = [errorCode, slug].filter((part) => part !== undefined).join(' ');
      throw new WikiError(
        'wiki_rejected',
        `Wiki.js refused pages.${field}${said ? `: ${said}` : ''}`,
        errorCode,
      );
    }
    return payload;
  };

  const pageVariables = (page: WikiPageInput) => ({
    content: page.content,
    description: page.description,
    editor: 'markdown',
    isPublished: true,
    locale: page.locale,
    path: page.path,
    tags: page.tags,
    title: page.title,
  });

  return {
    async createPage(page) {
      const payload = await call(WIKI_CREATE_PAGE, { ...pageVariables(page), isPrivate: false }, 'create');
      const id = payload?.page?.id;
      if (typeof id !== 'number' || !Number.isInteger(id)) {
        throw new WikiError('wiki_bad_response', 'Wiki.js created the page but gave no page id');
      }
      return { id };
    },
    async updatePage(id, page) {
      await call(WIKI_UPDATE_PAGE, { id, ...pageVariables(page) }, 'update');
    },
  };
}
