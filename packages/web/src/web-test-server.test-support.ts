import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildConnector } from 'undici';
import type { ResolvedAddress, WebDial, WebResolver } from './web-connector.js';

/** A route of the test server. */
export type TestRoute = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A loopback HTTP server that counts the TCP connections it accepts. */
export interface CountingServer {
  port: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Requests by path, in order. */
  readonly requests: string[];
  route(path: string, handler: TestRoute): void;
  close(): Promise<void>;
}

/** Starts a {@link CountingServer} on 127.0.0.1, port 0. */
export async function startCountingServer(): Promise<CountingServer> {
  const routes = new Map<string, TestRoute>();
  const requests: string[] = [];
  let connections = 0;
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    const handler = routes.get(path);
    if (handler) handler(request, response);
    else response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    requests,
    route(path, handler) {
      routes.set(path, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fake resolver: names map to the answers it gives, one list per call (the last list repeats), so a test can
 * make a name's second resolution differ (DNS rebinding). It records every name it is asked.
 */
export function fakeResolver(answers: Record<string, string[][]>): WebResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const count = calls.filter((name) => name === hostname).length;
    calls.push(hostname);
    const lists = answers[hostname];
    if (!lists) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const list = lists[Math.min(count, lists.length - 1)] ?? [];
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

/**
 * A dial that records the address the guard let through and then connects to the loopback test server instead,
 * whatever that address is: even a broken guard could never open a socket beyond loopback.
 */
export function loopbackDial(server: CountingServer): WebDial & { dialled: string[] } {
  const dialled: string[] = [];
  const connector = buildConnector({});
  const dial: WebDial = (options, callback) => {
    dialled.push(options.hostname);
    connector({ ...options, hostname: '127.0.0.1', port: String(server.port), protocol: 'http:' }, callback);
  };
  return Object.assign(dial, { dialled });
}
