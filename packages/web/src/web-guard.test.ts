import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebFetcher } from './web-fetcher.js';
import {
  type CountingServer,
  fakeResolver,
  loopbackDial,
  startCountingServer,
} from './web-test-server.test-support.js';

// Every case here either uses a loopback literal (so even a broken guard could only reach loopback) or a made-up
// name whose fake resolver answers the address under test while the dial lands on the counting loopback server.

let server: CountingServer;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  server = await startCountingServer();
  server.route('/', (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Inside</title><p>internal page</p>'),
  );
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await server.close();
});

function named(answers: Record<string, string[][]>) {
  const resolve = fakeResolver(answers);
  const dial = loopbackDial(server);
  const fetcher = createWebFetcher({ resolve, dial });
  closers.push(() => fetcher.close());
  return { fetcher, resolve, dial };
}

describe('the SSRF guard at connect time', () => {
  it.each([
    '127.0.0.1',
    '127.10.0.1',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.9.9',
    '192.168.0.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'fe80::1',
    '224.0.0.251',
  ])('a name resolving to %s is refused with web_blocked, and no connection is made', async (address) => {
    const { fetcher, resolve, dial } = named({ 'docs.example': [[address]] });
    await expect(fetcher.fetchPage('http://docs.example/')).rejects.toMatchObject({ code: 'web_blocked' });
    expect(resolve.calls).toEqual(['docs.example']);
    expect(dial.dialled).toEqual([]);
    expect(server.connections).toBe(0);
  });

  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'https://[0:0:0:0:0:ffff:7f00:1]/',
  ])('the loopback literal %s is refused without the test allowance, before any socket', async (url) => {
    const { fetcher, resolve, dial } = named({});
    await expect(fetcher.fetchPage(url)).rejects.toMatchObject({ code: 'web_blocked' });
    expect(resolve.calls).toEqual([]);
    expect(dial.dialled).toEqual([]);
    expect(server.connections).toBe(0);
  });

  it('refuses a name with one public and one private address (every answer is checked)', async () => {
    for (const answers of [
      ['93.184.216.34', '10.0.0.1'],
      ['10.0.0.1', '93.184.216.34'],
      ['2606:4700::1111', '::ffff:169.254.169.254'],
    ]) {
      const { fetcher, dial } = named({ 'mixed.example': [answers] });
      await expect(fetcher.fetchPage('http://mixed.example/')).rejects.toMatchObject({ code: 'web_blocked' });
      expect(dial.dialled).toEqual([]);
    }
    expect(server.connections).toBe(0);
  });

  it('resolves once and connects to exactly the address it checked (DNS rebinding has no second answer to use)', async () => {
    // The first answer is public; any later one would point inside. A pre-check by name followed by a second
    // resolution at connect time would connect to 127.0.0.1.
    const { fetcher, resolve, dial } = named({ 'rebind.example': [['93.184.216.34'], ['127.0.0.1']] });
    const page = await fetcher.fetchPage('http://rebind.example/');
    expect(page.title).toBe('Inside');
    expect(resolve.calls).toEqual(['rebind.example']);
    expect(dial.dialled).toEqual(['93.184.216.34']);
    expect(server.connections).toBe(1);
  });

  it('a public answer connects once, to that address, with the name kept for TLS and the Host header', async () => {
    let host: string | undefined;
    server.route('/host', (request, response) => {
      host = request.headers.host;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    const { fetcher, dial } = named({ 'public.example': [['2606:4700::1111']] });
    expect((await fetcher.fetchPage('http://public.example/host')).text).toBe('ok');
    expect(dial.dialled).toEqual(['2606:4700::1111']);
    expect(host).toBe('public.example');
  });

  it('reaches loopback only through the explicit allowance (HAL_WEB_ALLOW_PRIVATE), never the metadata address', async () => {
    const allowed = createWebFetcher({ allowPrivate: true, allowedPorts: [server.port] });
    closers.push(() => allowed.close());
    expect((await allowed.fetchPage(`http://127.0.0.1:${server.port}/`)).title).toBe('Inside');
    expect(server.connections).toBe(1);
    const resolve = fakeResolver({ 'metadata.example': [['169.254.169.254']] });
    const dial = loopbackDial(server);
    const withAllowance = createWebFetcher({ allowPrivate: true, resolve, dial });
    closers.push(() => withAllowance.close());
    await expect(withAllowance.fetchPage('http://metadata.example/latest/')).rejects.toMatchObject({
      code: 'web_blocked',
    });
    expect(dial.dialled).toEqual([]);
  });

  it('an unresolvable name is web_fetch_failed, and nothing connects', async () => {
    const { fetcher, dial } = named({});
    await expect(fetcher.fetchPage('http://nowhere.example/')).rejects.toMatchObject({
      code: 'web_fetch_failed',
    });
    expect(dial.dialled).toEqual([]);
  });
});
