import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebCache } from './web-cache.js';
import { createWebFetcher, type WebFetcherSettings } from './web-fetcher.js';
import {
  type CountingServer,
  fakeResolver,
  loopbackDial,
  startCountingServer,
} from './web-test-server.test-support.js';

let server: CountingServer;
const fetchers: Array<{ close(): Promise<void> }> = [];

beforeEach(async () => {
  server = await startCountingServer();
});
afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((fetcher) => fetcher.close()));
  await server.close();
});

/** A fetcher for loopback literal URLs: only through the explicit test allowance and the server's own port. */
function loopbackFetcher(settings: WebFetcherSettings = {}) {
  const fetcher = createWebFetcher({ allowPrivate: true, allowedPorts: [server.port], ...settings });
  fetchers.push(fetcher);
  return fetcher;
}

/** A fetcher for made-up public names: a fake resolver answers, and every socket lands on the loopback server. */
function namedFetcher(answers: Record<string, string[][]>, settings: WebFetcherSettings = {}) {
  const resolve = fakeResolver(answers);
  const dial = loopbackDial(server);
  const fetcher = createWebFetcher({ resolve, dial, ...settings });
  fetchers.push(fetcher);
  return { fetcher, resolve, dial };
}

const base = () => `http://127.0.0.1:${server.port}`;

function html(body: string, contentType = 'text/html; charset=utf-8') {
  return (_request: unknown, response: import('node:http').ServerResponse) =>
    response.writeHead(200, { 'content-type': contentType }).end(body);
}

describe('reading pages', () => {
  it('reduces a page with scripts and styles to its text and title', async () => {
    server.route(
      '/page',
      html(
        '<html><head><title>Release 2.4 notes</title><style>body{color:red}</style><script>var secret = 1;</script></head>' +
          '<body><h1>Release 2.4</h1><p>Fixes the <b>backup</b> job.</p><noscript>enable JS</noscript><script>track()</script></body></html>',
      ),
    );
    const page = await loopbackFetcher().fetchPage(`${base()}/page`);
    expect(page.title).toBe('Release 2.4 notes');
    expect(page.text).toContain('Fixes the backup job.');
    expect(page.text).not.toMatch(/secret|track|color|enable JS/);
    expect(page).toMatchObject({ finalUrl: `${base()}/page`, contentType: 'text/html', truncated: false });
  });

  it('decodes EUC-KR from the header and Shift_JIS and GB18030 from a <meta> charset', async () => {
    server.route('/ko', (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html; charset=EUC-KR' })
        .end(iconv.encode('<title>공지사항</title><p>서버 점검 안내입니다.</p>', 'euc-kr')),
    );
    server.route('/ja', (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          iconv.encode(
            '<html><head><meta charset="Shift_JIS"><title>お知らせ</title></head><body><p>メンテナンスのお知らせ</p></body></html>',
            'shift_jis',
          ),
        ),
    );
    server.route('/zh', (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          iconv.encode(
            '<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>通知</title><p>系统维护通知</p>',
            'gb18030',
          ),
        ),
    );
    const fetcher = loopbackFetcher();
    expect(await fetcher.fetchPage(`${base()}/ko`)).toMatchObject({
      title: '공지사항',
      text: '서버 점검 안내입니다.',
    });
    expect(await fetcher.fetchPage(`${base()}/ja`)).toMatchObject({
      title: 'お知らせ',
      text: 'メンテナンスのお知らせ',
    });
    expect(await fetcher.fetchPage(`${base()}/zh`)).toMatchObject({ title: '通知', text: '系统维护通知' });
  });

  it('lets a byte order mark win over a wrong header', async () => {
    server.route('/bom', (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' })
        .end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('naïve café', 'utf8')])),
    );
    expect((await loopbackFetcher().fetchPage(`${base()}/bom`)).text).toBe('naïve café');
  });

  it('keeps plain text and JSON as text, and refuses other types with web_unsupported_type', async () => {
    server.route('/notes.txt', html('line one\r\nline  two\n', 'text/plain'));
    server.route('/data.json', html('{\n  "status": "ok"\n}', 'application/json'));
    server.route('/image.png', html('\x89PNG....', 'image/png'));
    server.route('/untyped', (_request, response) => response.writeHead(200).end('??'));
    const fetcher = loopbackFetcher();
    expect((await fetcher.fetchPage(`${base()}/notes.txt`)).text).toBe('line one\nline  two');
    expect((await fetcher.fetchPage(`${base()}/data.json`)).text).toBe('{\n  "status": "ok"\n}');
    await expect(fetcher.fetchPage(`${base()}/image.png`)).rejects.toMatchObject({
      code: 'web_unsupported_type',
    });
    await expect(fetcher.fetchPage(`${base()}/untyped`)).rejects.toMatchObject({
      code: 'web_unsupported_type',
    });
  });

  it('caps the text and says it was truncated', async () => {
    server.route('/long', html('a'.repeat(500), 'text/plain'));
    const page = await loopbackFetcher({ maxChars: 120 }).fetchPage(`${base()}/long`);
    expect(page.text).toHaveLength(120);
    expect(page.truncated).toBe(true);
  });

  it('answers an HTTP error as web_fetch_failed', async () => {
    await expect(loopbackFetcher().fetchPage(`${base()}/missing`)).rejects.toMatchObject({
      code: 'web_fetch_failed',
      message: expect.stringContaining('404'),
    });
  });
});

describe('limits', () => {
  it('stops a gzip bomb at the cap after decompression (web_too_large)', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.byteLength).toBeLessThan(100 * 1024);
    server.route('/bomb', (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(bomb),
    );
    server.route('/small.gz', (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
        .end(zlib.gzipSync('compressed text')),
    );
    const fetcher = loopbackFetcher();
    await expect(fetcher.fetchPage(`${base()}/bomb`)).rejects.toMatchObject({ code: 'web_too_large' });
    expect((await fetcher.fetchPage(`${base()}/small.gz`)).text).toBe('compressed text');
  });

  it('refuses a plain body larger than the cap', async () => {
    server.route('/big', html('x'.repeat(4096), 'text/plain'));
    await expect(loopbackFetcher({ maxBodyBytes: 1024 }).fetchPage(`${base()}/big`)).rejects.toMatchObject({
      code: 'web_too_large',
    });
  });

  it('gives up on a slow drip past the timeout (web_timeout)', async () => {
    const timers: NodeJS.Timeout[] = [];
    server.route('/drip', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      timers.push(setInterval(() => response.write('.'), 20));
    });
    await expect(loopbackFetcher({ timeoutMs: 250 }).fetchPage(`${base()}/drip`)).rejects.toMatchObject({
      code: 'web_timeout',
    });
    for (const timer of timers) clearInterval(timer);
  });
});

describe('redirects', () => {
  it('follows at most three, and refuses the fourth', async () => {
    for (const [from, to] of [
      ['/r1', '/r2'],
      ['/r2', '/r3'],
      ['/r3', '/done'],
      ['/r0', '/r1'],
    ]) {
      server.route(from as string, (_request, response) => response.writeHead(302, { location: to }).end());
    }
    server.route('/done', html('<title>Done</title><p>arrived</p>'));
    const fetcher = loopbackFetcher();
    const page = await fetcher.fetchPage(`${base()}/r1`);
    expect(page).toMatchObject({ url: `${base()}/r1`, finalUrl: `${base()}/done`, title: 'Done' });
    await expect(fetcher.fetchPage(`${base()}/r0`)).rejects.toMatchObject({
      code: 'web_fetch_failed',
      message: expect.stringContaining('redirects'),
    });
  });

  it('re-checks each hop: a redirect to a name with a private address is refused before connecting', async () => {
    server.route('/go', (_request, response) =>
      response.writeHead(301, { location: 'http://intranet.example/admin' }).end(),
    );
    const { fetcher, dial } = namedFetcher({
      'news.example': [['93.184.216.34']],
      'intranet.example': [['10.0.0.5']],
    });
    await expect(fetcher.fetchPage('http://news.example/go')).rejects.toMatchObject({ code: 'web_blocked' });
    expect(dial.dialled).toEqual(['93.184.216.34']);
    expect(server.requests).toEqual(['/go']);
  });

  it('re-checks each hop: a redirect to a loopback literal or to another port is refused', async () => {
    server.route('/to-loopback', (_request, response) =>
      response.writeHead(302, { location: `http://[::ffff:127.0.0.1]/` }).end(),
    );
    server.route('/to-port', (_request, response) =>
      response.writeHead(302, { location: 'http://news.example:8080/' }).end(),
    );
    const { fetcher, dial } = namedFetcher({ 'news.example': [['93.184.216.34']] });
    await expect(fetcher.fetchPage('http://news.example/to-loopback')).rejects.toMatchObject({
      code: 'web_blocked',
    });
    await expect(fetcher.fetchPage('http://news.example/to-port')).rejects.toMatchObject({
      code: 'web_blocked',
    });
    expect(dial.dialled.every((address) => address === '93.184.216.34')).toBe(true);
  });
});

describe('the cache', () => {
  it('serves a fresh success without a new connection, and fetches again once it expired', async () => {
    let served = 0;
    server.route('/cached', (_request, response) => {
      served += 1;
      response.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end(`version ${served}`);
    });
    let now = 1_000_000;
    const cache = createWebCache({ ttlMs: 60_000, now: () => now });
    const fetcher = loopbackFetcher({ cache });
    expect((await fetcher.fetchPage(`${base()}/cached`)).text).toBe('version 1');
    // The same page, spelt differently: the normalised key finds it.
    expect((await fetcher.fetchPage(`${base()}/cached#section`)).text).toBe('version 1');
    expect(served).toBe(1);
    expect(server.connections).toBe(1);
    now += 60_001;
    expect((await fetcher.fetchPage(`${base()}/cached`)).text).toBe('version 2');
    expect(served).toBe(2);
  });

  it('never stores a failure', async () => {
    let calls = 0;
    server.route('/flaky', (_request, response) => {
      calls += 1;
      if (calls === 1) response.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      else response.writeHead(200, { 'content-type': 'text/plain' }).end('back');
    });
    const cache = createWebCache();
    const fetcher = loopbackFetcher({ cache });
    await expect(fetcher.fetchPage(`${base()}/flaky`)).rejects.toMatchObject({ code: 'web_fetch_failed' });
    expect(cache.size).toBe(0);
    expect((await fetcher.fetchPage(`${base()}/flaky`)).text).toBe('back');
    expect(calls).toBe(2);
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const cache = createWebCache({ maxEntries: 2 });
    const page = (url: string) => ({
      url,
      finalUrl: url,
      contentType: 'text/plain',
      title: '',
      text: url,
      truncated: false,
      fetchedAt: '',
    });
    for (const url of ['a', 'b', 'c']) cache.set(url, page(url));
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')?.text).toBe('c');
    // A page read again is kept over one stored later but not read since.
    expect(cache.get('b')?.text).toBe('b');
    cache.set('d', page('d'));
    expect(cache.get('b')?.text).toBe('b');
    expect(cache.get('c')).toBeUndefined();
  });
});
