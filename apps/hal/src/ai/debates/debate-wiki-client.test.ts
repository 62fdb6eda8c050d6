import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWikiClient,
  isWikiUrl,
  WIKI_PAGE_DUPLICATE,
  type WikiError,
  type WikiPageInput,
  wikiGraphqlEndpoint,
} from './debate-wiki-client.js';
import { createFakeWiki, type FakeWiki } from './debate-wiki-fake.test-support.js';

let wiki: FakeWiki;
let token: string;

const page = (overrides: Partial<WikiPageInput> = {}): WikiPageInput => ({
  path: 'debates/탭-대-스페이스-1a2b3c/round-log',
  locale: 'ko',
  title: '탭 대 스페이스 — round log',
  description: 'HAL debate: 탭 대 스페이스',
  content: '# Round log\n\nround 1',
  tags: ['hal', 'debate'],
  ...overrides,
});

beforeEach(async () => {
  token = randomBytes(24).toString('base64url');
  wiki = await createFakeWiki({ token });
});

afterEach(async () => {
  await wiki.close();
});

describe('the Wiki.js client', () => {
  it('creates a page, then updates it by its id, sending the API key as a bearer token', async () => {
    const client = createWikiClient({ url: wiki.url, token });
    const { id } = await client.createPage(page());
    expect(id).toBe(1);
    await client.updatePage(id, page({ content: '# Round log\n\nround 1\n\nround 2' }));
    expect(wiki.calls.map((call) => [call.operation, call.status, call.authorization])).toEqual([
      ['create', 200, `Bearer ${token}`],
      ['update', 200, `Bearer ${token}`],
    ]);
    expect(wiki.calls[0]?.variables).toMatchObject({
      path: 'debates/탭-대-스페이스-1a2b3c/round-log',
      locale: 'ko',
      editor: 'markdown',
      isPublished: true,
      isPrivate: false,
      tags: ['hal', 'debate'],
    });
    expect(wiki.calls[1]?.variables).toMatchObject({ id: 1 });
    expect(wiki.pages.get('debates/탭-대-스페이스-1a2b3c/round-log')).toMatchObject({
      id: 1,
      updates: 1,
      content: '# Round log\n\nround 1\n\nround 2',
    });
  });

  it('turns each Wiki.js failure into a stable code, never carrying the token', async () => {
    const wrong = createWikiClient({ url: wiki.url, token: `${token}x` });
    const forbidden = await wrong.createPage(page()).catch((error: unknown) => error);
    expect(forbidden).toMatchObject({
      code: 'wiki_graphql_error',
      message: expect.stringContaining('Forbidden'),
    });

    const client = createWikiClient({ url: `${wiki.url}/graphql/`, token });
    await client.createPage(page());
    const duplicate = await client.createPage(page()).catch((error: unknown) => error);
    expect(duplicate).toMatchObject({ code: 'wiki_rejected', wikiErrorCode: WIKI_PAGE_DUPLICATE });
    const missing = await client.updatePage(99, page()).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 'wiki_rejected', wikiErrorCode: 6003 });
    const illegal = await client.createPage(page({ path: 'debates/a.b' })).catch((error: unknown) => error);
    expect(illegal).toMatchObject({ code: 'wiki_rejected', wikiErrorCode: 6005 });

    wiki.failNext(1, 'http500');
    expect(await client.createPage(page({ path: 'x/y' })).catch((error: unknown) => error)).toMatchObject({
      code: 'wiki_http_error',
      message: 'Wiki.js answered HTTP 500',
    });
    wiki.failNext(1, 'rejected');
    expect(await client.createPage(page({ path: 'x/y' })).catch((error: unknown) => error)).toMatchObject({
      code: 'wiki_rejected',
      wikiErrorCode: 6001,
    });

    // A port nothing listens on (taken, then released) on the loopback.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = createWikiClient({ url: `http://127.0.0.1:${port}`, token });
    const unreachable = await gone.createPage(page()).catch((error: unknown) => error);
    expect(unreachable).toMatchObject({ code: 'wiki_unreachable' });

    for (const error of [forbidden, duplicate, missing, illegal, unreachable]) {
      expect(String((error as Error).message)).not.toContain(token);
    }
  });

  it('keeps no foreign text: GraphQL and Wiki.js messages, and the socket error of a closed port', async () => {
    // `wiki.url` can be any server: one on the loopback that words its errors with a per-run canary.
    const canary = `canary-${randomBytes(12).toString('hex')}`;
    const answers: unknown[] = [
      { errors: [{ message: `Intranet says ${canary}`, extensions: { code: 'FORBIDDEN' } }] },
      { errors: [{ message: 'Forbidden' }, { message: `${canary} at 10.0.0.7` }] },
      {
        data: {
          pages: {
            create: {
              responseResult: {
                succeeded: false,
                errorCode: 6002,
                slug: 'PageDuplicateCreate',
                message: canary,
              },
            },
          },
        },
      },
      {
        data: {
          pages: {
            create: { responseResult: { succeeded: false, errorCode: `9 ${canary}`, slug: `x ${canary}` } },
          },
        },
      },
    ];
    const hostile = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answers.shift()));
      });
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    const client = createWikiClient({
      url: `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`,
      token,
    });
    const errors: unknown[] = [];
    try {
      for (let index = 0; index < 4; index += 1) {
        errors.push(await client.createPage(page()).catch((error: unknown) => error));
      }
    } finally {
      await new Promise<void>((resolve) => hostile.close(() => resolve()));
    }
    for (const error of errors) expect(String((error as Error).message)).not.toContain(canary);
    expect(errors.map((error) => [(error as WikiError).code, (error as Error).message])).toEqual([
      ['wiki_graphql_error', 'Wiki.js refused the request (FORBIDDEN)'],
      ['wiki_graphql_error', 'Wiki.js refused the request (Forbidden)'],
      ['wiki_rejected', 'Wiki.js refused pages.create: 6002 PageDuplicateCreate'],
      ['wiki_rejected', 'Wiki.js refused pages.create'],
    ]);
    expect((errors[2] as WikiError).wikiErrorCode).toBe(WIKI_PAGE_DUPLICATE);
    expect((errors[3] as WikiError).wikiErrorCode).toBeUndefined();

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = await createWikiClient({ url: `http://127.0.0.1:${port}`, token })
      .createPage(page())
      .catch((error: unknown) => error);
    for (const word of [`:${port}`, '127.0.0.1', 'ECONNREFUSED']) {
      expect((gone as Error).message).not.toContain(word);
    }
    expect(gone).toMatchObject({ code: 'wiki_unreachable', message: 'Wiki.js did not answer' });
  });

  it('speaks the schema the fake enforces (a document missing a required argument is refused there)', async () => {
    const response = await fetch(`${wiki.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation { pages { create(content: "x", title: "t", path: "a/b") { responseResult { succeeded } } } }',
      }),
    });
    expect(response.status).toBe(400);
    const { errors } = (await response.json()) as { errors: { message: string }[] };
    expect(errors.map((error) => error.message)).toContainEqual(
      expect.stringContaining('argument "description" of type "String!" is required'),
    );
    expect(wiki.pages.size).toBe(0);
  });

  it('accepts only http(s) wiki addresses and finds the GraphQL endpoint', () => {
    expect(isWikiUrl('https://wiki.example.com')).toBe(true);
    expect(isWikiUrl('http://127.0.0.1:3000/')).toBe(true);
    for (const bad of ['ftp://wiki.example.com', 'wiki.example.com', 'https://user@wiki.example.com', '']) {
      expect(isWikiUrl(bad)).toBe(false);
    }
    expect(wikiGraphqlEndpoint('https://wiki.example.com/')).toBe('https://wiki.example.com/graphql');
    expect(wikiGraphqlEndpoint('https://wiki.example.com/graphql')).toBe('https://wiki.example.com/graphql');
  });
});
