import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

/** One request a {@link FakeProxy} saw: a `CONNECT host:port` tunnel, or a forwarded absolute-form request. */
export interface FakeProxyRequest {
  method: string;
  /** `host:port` of a tunnel, or the absolute URL of a forwarded request. */
  target: string;
}

/** A running HTTP proxy on 127.0.0.1. */
export interface FakeProxy {
  /** `http://127.0.0.1:<port>` — the value for `HTTP_PROXY` / `HTTPS_PROXY`. */
  readonly url: string;
  /** Every request it saw, in order. */
  readonly requests: FakeProxyRequest[];
  close(): Promise<void>;
}

/** Options of {@link createFakeProxy}. */
export interface FakeProxyOptions {
  /** Answer every request with this status (e.g. 403, 407) instead of passing it on. */
  refuseWith?: number;
}

/**
 * A small forward proxy on 127.0.0.1:0 that counts what goes through it: `CONNECT` tunnels (what undici's
 * `ProxyAgent` opens, for `http:` targets too) and absolute-form requests. It only ever connects to loopback
 * targets, so a test cannot reach further by mistake.
 *
 * @example
 * const proxy = await createFakeProxy();
 * const dispatcher = createProxyDispatcher({ HTTP_PROXY: proxy.url, NO_PROXY: '' });
 */
export async function createFakeProxy(options: FakeProxyOptions = {}): Promise<FakeProxy> {
  const requests: FakeProxyRequest[] = [];
  const sockets = new Set<Socket>();
  const loopback = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '[::1]';

  const server: Server = createServer((request, response) => {
    const target = request.url ?? '';
    requests.push({ method: request.method ?? 'GET', target });
    const url = URL.canParse(target) ? new URL(target) : undefined;
    if (options.refuseWith || !url || !loopback(url.hostname)) {
      response.writeHead(options.refuseWith ?? 403, { 'content-type': 'text/plain' });
      response.end('refused by the proxy');
      return;
    }
    const upstream = httpRequest(
      url,
      { method: request.method, headers: { ...request.headers, host: url.host } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  server.on('connect', (request, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    requests.push({ method: 'CONNECT', target });
    const [host = '', port = ''] = target.split(/:(?=\d+$)/);
    if (options.refuseWith || !loopback(host)) {
      client.end(`HTTP/1.1 ${options.refuseWith ?? 403} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const upstream = connect(Number(port), host === 'localhost' ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
