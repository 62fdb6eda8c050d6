// Test support (not exported): a small real reverse proxy on 127.0.0.1, standing for the nginx of
// deploy/nginx-hal.conf — TLS is the proxy's business, so it says `X-Forwarded-Proto: https` — and a client that
// can connect from another loopback address (127.0.0.2, 127.0.0.3, …) so the proxy sees different clients.
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';

/** A running reverse proxy. */
export interface ReverseProxy {
  /** `http://127.0.0.1:<port>`: where clients connect. */
  url: string;
  /** Where requests go (`http://127.0.0.1:<port>` of HAL); set once HAL listens. */
  target: string;
  close(): Promise<void>;
}

/**
 * Starts the proxy: every request goes to `target` with its method, path, headers and body piped through (no
 * buffering either way, as `proxy_buffering off`), `Host` kept, and — as nginx's `proxy_set_header` does — the
 * forwarded headers *set*, not appended: `X-Forwarded-For` is the client's socket address, `X-Forwarded-Proto`
 * `https`, `X-Forwarded-Host` the `Host` the client asked for.
 */
export async function startReverseProxy(): Promise<ReverseProxy> {
  const sockets = new Set<net.Socket>();
  const proxy: ReverseProxy = {
    url: '',
    target: '',
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((request, response) => {
    const target = new URL(proxy.target);
    const headers = { ...request.headers };
    headers['x-forwarded-for'] = request.socket.remoteAddress ?? '';
    headers['x-forwarded-proto'] = 'https';
    headers['x-forwarded-host'] = request.headers.host ?? '';
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        // Each piece goes out as it comes (no buffering): a stream reaches the client as HAL writes it.
        response.flushHeaders();
        answer.pipe(response);
      },
    );
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    request.pipe(upstream);
    response.on('close', () => upstream.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}

/** An answer read whole. */
export interface ProxiedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Options of {@link requestFrom}. */
export interface RequestFromOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The loopback address the client connects from (default 127.0.0.1). */
  from?: string;
  /** For an `https:` URL: the certificate (PEM) to trust, e.g. a test's self-signed one. */
  ca?: string;
}

/** One HTTP request to `url`, from a chosen loopback address. */
export function requestFrom(url: string, options: RequestFromOptions = {}): Promise<ProxiedAnswer> {
  return new Promise((resolve, reject) => {
    const secure = url.startsWith('https:');
    const request = (secure ? https : http).request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        localAddress: options.from ?? '127.0.0.1',
        // TLS to a loopback proxy: the certificate names the public host the request's Host header gives.
        ...(secure ? { ca: options.ca, servername: hostOf(options.headers) } : {}),
      },
      (answer) => {
        let body = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => {
          body += chunk;
        });
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** An event stream being read: what arrived so far, and a way to wait for more. */
export interface OpenStream {
  received(): string;
  /** Resolves once `predicate` holds for what arrived (checked on every piece). */
  waitFor(predicate: (text: string) => boolean): Promise<string>;
  close(): void;
}

/** The host name of a `host` header, if one is given (the TLS server name to ask for). */
function hostOf(headers: Record<string, string> | undefined): string | undefined {
  return headers?.host?.replace(/:\d+$/, '');
}

/** Opens a GET that stays open (SSE) and collects its pieces as they arrive (`ca` as for {@link requestFrom}). */
export function openStream(url: string, headers: Record<string, string>, ca?: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    let text = '';
    const waiters: Array<{ predicate: (text: string) => boolean; resolve: (text: string) => void }> = [];
    const secure = url.startsWith('https:');
    const options = { method: 'GET', headers, ...(secure ? { ca, servername: hostOf(headers) } : {}) };
    const request = (secure ? https : http).request(url, options, (answer) => {
      if (answer.statusCode !== 200) {
        reject(new Error(`stream answered ${answer.statusCode}`));
        return;
      }
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => {
        text += chunk;
        for (const waiter of waiters.splice(0)) {
          if (waiter.predicate(text)) waiter.resolve(text);
          else waiters.push(waiter);
        }
      });
      resolve({
        received: () => text,
        waitFor: (predicate) =>
          predicate(text)
            ? Promise.resolve(text)
            : new Promise((done) => waiters.push({ predicate, resolve: done })),
        close: () => request.destroy(),
      });
    });
    request.on('error', (error) => {
      if (text === '') reject(error);
    });
    request.end();
  });
}
