import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { isBlockedAddress, normaliseWebUrl, type WebDial, type WebResolver } from '@hal-ai/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from '../../src/ai/rooms/room-app.test-support.js';
import { createHalWebAccess, type HalWebAccess } from '../../src/ai/web/hal-web-access.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

/*
 * The network rule of these tests: no socket is ever opened here. Each spelling is parsed as the fetcher parses a
 * URL, and its host is checked by the same address rule the connect-time guard applies (as a function).
 */
const SPELLINGS = [
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0177.0.0.1/',
  'http://127.1/',
  'http://0/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://10.0.0.1/',
  'http://0x0a.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/',
  'http://[fd00:ec2::254]/',
  'http://[::ffff:169.254.169.254]/',
  'http://100.64.0.1/',
  'http://[fc00::1]/',
  'http://[fe80::1]/',
  'http://224.0.0.1/',
  'http://0.0.0.0/',
  'http://[::]/',
  'http://[::127.0.0.1]/',
];

describe('hostile: SSRF spellings (the address rule as a function)', () => {
  it('refuses every loopback, private, link-local, CGNAT, ULA, multicast and metadata spelling', (context) => {
    const { tally, check } = createTally();
    for (const spelling of SPELLINGS) {
      let blocked: boolean;
      try {
        const host = normaliseWebUrl(spelling).hostname;
        blocked = isBlockedAddress(host.replace(/^\[(.*)\]$/, '$1'));
      } catch (error) {
        blocked = (error as { code?: string }).code === 'web_blocked';
      }
      check(blocked, spelling);
    }
    // The metadata address stays blocked even with the named allowance for private networks.
    check(isBlockedAddress('169.254.169.254', { allowPrivate: true }), 'metadata with allowPrivate');
    check(!isBlockedAddress('93.184.216.34'), 'a public address passes (the rule is not "block everything")');
    // No socket here: the connections figure comes from the connect-time pass below.
    recordFigures(context, 'SSRF spellings', tally);
    expect(tally.misses).toEqual([]);
  });
});

/*
 * The connect-time pass: HAL's own web access (the fetcher behind linked pages and `web_fetch`), built as the
 * runtime builds it, with two edges injected. The resolver answers each made-up name with one blocked address
 * spelling; the dial records what the guard let through and connects to a counting loopback server instead,
 * whatever the address. So even a broken guard opens a socket only to loopback, and the server's real count of
 * accepted connections is the figure.
 */
const RESOLVED_SPELLINGS = [
  '127.0.0.1',
  '127.255.255.254',
  '::1',
  '0:0:0:0:0:0:0:1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.1',
  '169.254.169.254',
  '::ffff:169.254.169.254',
  'fd00:ec2::254',
  '100.64.0.1',
  'fc00::1',
  'fe80::1',
  '224.0.0.1',
  'ff02::1',
  '0.0.0.0',
  '::',
];

interface CountingServer {
  port: number;
  connections: number;
  close(): Promise<void>;
}

async function startCountingServer(): Promise<CountingServer> {
  const server = http.createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Inside</title><p>internal page</p>'),
  );
  const counting = { port: 0, connections: 0, close: async () => {} };
  server.on('connection', () => {
    counting.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  counting.port = (server.address() as AddressInfo).port;
  counting.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return counting;
}

let t: RoomTestApp;
let counting: CountingServer;
let web: HalWebAccess;
const dialled: string[] = [];
const resolved: string[] = [];

/** Name `n<i>.blocked.example` answers `RESOLVED_SPELLINGS[i]`; `public.example` a public address (the control). */
const resolve: WebResolver = async (hostname) => {
  resolved.push(hostname);
  const index = /^n(\d+)\.blocked\.example$/.exec(hostname)?.[1];
  const address = hostname === 'public.example' ? '93.184.216.34' : RESOLVED_SPELLINGS[Number(index)];
  if (index === undefined && hostname !== 'public.example') throw new Error(`unexpected host ${hostname}`);
  if (address === undefined) throw new Error(`unexpected host ${hostname}`);
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

/** Records the checked address, then dials the counting loopback server whatever it was. */
const dial: WebDial = (options, callback) => {
  dialled.push(options.hostname);
  const socket = net.connect({ host: '127.0.0.1', port: counting.port });
  socket.once('connect', () => callback(null, socket));
  socket.once('error', (error) => callback(error, null));
};

beforeAll(async () => {
  counting = await startCountingServer();
  // No HAL_WEB_ALLOW_PRIVATE: the rule is the production one.
  t = await createRoomTestApp({
    web: (deps) => {
      web = createHalWebAccess(deps, { fetcherSettings: { resolve, dial } });
      return web;
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await counting?.close();
});

describe("hostile: SSRF at connect time (HAL's web access, injected resolver, counting loopback server)", () => {
  it('opens no connection for any blocked answer or literal, through web_fetch or a linked page', async (context) => {
    const { tally, check } = createTally();
    const codeOf = (error: unknown) => (error as { code?: string }).code;
    // web_fetch: a name for each resolved spelling, and each literal spelling of the first pass.
    const urls = [...RESOLVED_SPELLINGS.map((_, index) => `http://n${index}.blocked.example/`), ...SPELLINGS];
    for (const url of urls) {
      const code = await web.fetchPage(url).then(
        () => 'fetched',
        (error: unknown) => codeOf(error),
      );
      check(code === 'web_blocked', `web_fetch ${url}: ${code}`);
    }
    // Linked pages in an operator message, through the room route (two links a message).
    const room = (await t.call('GET', '/ops/api/ai/rooms')).body.rooms[1].id as string;
    for (let index = 0; index < RESOLVED_SPELLINGS.length; index += 2) {
      const links = [index, index + 1]
        .filter((entry) => entry < RESOLVED_SPELLINGS.length)
        .map((entry) => `http://n${entry}.blocked.example/page`);
      t.gpt.enqueue({ text: 'ok' });
      const posted = await t.call('POST', `/ops/api/ai/rooms/${room}/messages`, {
        text: `what do ${links.join(' and ')} say?`,
      });
      const blocks = (
        posted.body.message.content as Array<{ type: string; error?: { code: string } }>
      ).filter((block) => block.type === 'context');
      for (const [position, link] of links.entries()) {
        check(
          blocks[position]?.error?.code === 'web_blocked',
          `linked ${link}: ${JSON.stringify(blocks[position])}`,
        );
      }
    }
    await t.ai.engine.idle();
    // Every name was really resolved (the guard ran at connect time, not on the name), and nothing was dialled.
    expect(new Set(resolved).size).toBe(RESOLVED_SPELLINGS.length);
    const blockedConnections = counting.connections;
    recordFigures(context, 'SSRF at connect time', { ...tally, blockedConnections });
    expect(tally.misses).toEqual([]);
    expect(dialled).toEqual([]);
    expect(blockedConnections).toBe(0);

    // Control: a public answer is dialled once and lands on the counting server, so a 0 above means something.
    const page = await web.fetchPage('http://public.example/');
    expect(page.title).toBe('Inside');
    expect(dialled).toEqual(['93.184.216.34']);
    expect(counting.connections).toBe(1);
  });
});
