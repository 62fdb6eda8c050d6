/**
 * A fake Wiki.js 2.x for tests: a real HTTP server on 127.0.0.1 (port 0) whose `POST /graphql` runs the request
 * through graphql-js against the pages part of Wiki.js's schema, so a misspelt field, a missing required argument or
 * a variable of the wrong type fails here as it fails there. Like Wiki.js it answers HTTP 200 for refused calls
 * (`responseResult.succeeded: false` with its error codes: 6002 duplicate path, 6003 not found, 6004 empty content,
 * 6005 illegal path) and a GraphQL `Forbidden` error for a missing or wrong API key. It can be told to fail the next
 * calls (HTTP 500 or `succeeded: false`) to test retries.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql } from 'graphql';

/** The pages part of Wiki.js 2.x's GraphQL schema (arguments and types as the real server declares them). */
const SCHEMA = buildSchema(`
  scalar Date
  type Query { pages: PageQuery }
  type Mutation { pages: PageMutation }
  type PageQuery { single(id: Int!): Page }
  type PageMutation {
    create(content: String!, description: String!, editor: String!, isPublished: Boolean!, isPrivate: Boolean!,
      locale: String!, path: String!, publishEndDate: Date, publishStartDate: Date, scriptCss: String,
      scriptJs: String, tags: [String]!, title: String!): PageResponse
    update(id: Int!, content: String, description: String, editor: String, isPrivate: Boolean, isPublished: Boolean,
      locale: String, path: String, publishEndDate: Date, publishStartDate: Date, scriptCss: String,
      scriptJs: String, tags: [String], title: String): PageResponse
  }
  type ResponseStatus { succeeded: Boolean!, errorCode: Int!, slug: String!, message: String }
  type PageResponse { responseResult: ResponseStatus!, page: Page }
  type Page { id: Int!, path: String!, title: String!, description: String!, content: String!, locale: String!,
    editor: String!, isPublished: Boolean!, isPrivate: Boolean!, tags: [String]! }
`);

/** A page the fake holds. */
export interface FakeWikiPage {
  id: number;
  path: string;
  locale: string;
  title: string;
  description: string;
  content: string;
  editor: string;
  isPublished: boolean;
  isPrivate: boolean;
  tags: string[];
  /** How many times it was updated after its creation. */
  updates: number;
}

/** One call the fake received. */
export interface FakeWikiCall {
  operation: 'create' | 'update' | 'other';
  authorization: string | undefined;
  variables: Record<string, unknown>;
  status: number;
}

/** The fake and its controls. */
export interface FakeWiki {
  /** The wiki's address (what the operator sets as `wiki.url`). */
  url: string;
  calls: FakeWikiCall[];
  /** Pages by path. */
  pages: Map<string, FakeWikiPage>;
  /** The next `count` calls fail: with HTTP 500, or with `succeeded: false` (6001 PageGenericError). */
  failNext(count: number, mode: 'http500' | 'rejected'): void;
  close(): Promise<void>;
}

const ok = (message: string) => ({ succeeded: true, errorCode: 0, slug: 'ok', message });
const refused = (errorCode: number, slug: string, message: string) => ({
  responseResult: { succeeded: false, errorCode, slug, message },
  page: null,
});

/** Wiki.js's path rules: no `.`, space, backslash or `//`; leading and trailing slashes dropped. */
function normalizePath(path: string): string | null {
  if (path.includes('.') || path.includes(' ') || path.includes('\\') || path.includes('//')) return null;
  return path.replace(/^\//, '').replace(/\/$/, '');
}

/**
 * Starts the fake, accepting only `Authorization: Bearer <token>`.
 *
 * @example
 * const wiki = await createFakeWiki({ token });
 * // … set wiki.url and wiki.api_token, run a debate …
 * expect(wiki.pages.get(`debates/${slug}/round-log`)?.updates).toBeGreaterThan(0);
 */
export async function createFakeWiki(settings: { token: string }): Promise<FakeWiki> {
  const calls: FakeWikiCall[] = [];
  const pages = new Map<string, FakeWikiPage>();
  let nextId = 1;
  const failing: { count: number; mode: 'http500' | 'rejected' } = { count: 0, mode: 'http500' };

  const mutation = (authorized: boolean) => ({
    create(args: Omit<FakeWikiPage, 'id' | 'updates'>) {
      if (!authorized) throw new Error('Forbidden');
      const path = normalizePath(args.path);
      if (path === null)
        return refused(6005, 'PageIllegalPath', 'Page path cannot contains illegal characters.');
      if (args.content.trim() === '')
        return refused(6004, 'PageEmptyContent', 'Page content cannot be empty.');
      if (pages.has(path)) {
        return refused(
          6002,
          'PageDuplicateCreate',
          'Cannot create this page because an entry already exists at the same path.',
        );
      }
      const page: FakeWikiPage = { ...args, path, tags: [...args.tags], id: nextId++, updates: 0 };
      pages.set(path, page);
      return { responseResult: ok('Page created successfully.'), page };
    },
    update(args: Partial<Omit<FakeWikiPage, 'updates'>> & { id: number }) {
      if (!authorized) throw new Error('Forbidden');
      const page = [...pages.values()].find((entry) => entry.id === args.id);
      if (!page) return refused(6003, 'PageNotFound', 'This page does not exist.');
      if (args.content !== undefined && args.content.trim() === '') {
        return refused(6004, 'PageEmptyContent', 'Page content cannot be empty.');
      }
      const { id: _id, ...changes } = args;
      Object.assign(page, changes, { updates: page.updates + 1 });
      return { responseResult: ok('Page has been updated.'), page };
    },
  });

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const send = (status: number, body: unknown) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        };
        if (request.method !== 'POST' || request.url !== '/graphql') {
          send(404, { error: 'not found' });
          return;
        }
        const authorization = request.headers.authorization;
        let body: { query?: string; variables?: Record<string, unknown> };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
        } catch {
          send(400, { errors: [{ message: 'POST body sent invalid JSON.' }] });
          return;
        }
        const query = body.query ?? '';
        const operation = /\bcreate\s*\(/.test(query)
          ? 'create'
          : /\bupdate\s*\(/.test(query)
            ? 'update'
            : 'other';
        const call: FakeWikiCall = { operation, authorization, variables: body.variables ?? {}, status: 200 };
        calls.push(call);
        if (failing.count > 0) {
          failing.count -= 1;
          if (failing.mode === 'http500') {
            call.status = 500;
            send(500, { errors: [{ message: 'Internal Server Error' }] });
            return;
          }
          send(200, {
            data: { pages: { [operation]: refused(6001, 'PageGenericError', 'Database is down.') } },
          });
          return;
        }
        const authorized = authorization === `Bearer ${settings.token}`;
        const result = await graphql({
          schema: SCHEMA,
          source: query,
          variableValues: body.variables ?? {},
          rootValue: {
            pages: () => ({
              ...mutation(authorized),
              single: ({ id }: { id: number }) => [...pages.values()].find((page) => page.id === id) ?? null,
            }),
          },
        });
        // Like Apollo Server: a document that does not validate is a 400, resolver errors ride a 200.
        const invalid = result.errors && !result.data;
        call.status = invalid ? 400 : 200;
        send(call.status, result);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    pages,
    failNext(count, mode) {
      failing.count = count;
      failing.mode = mode;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
