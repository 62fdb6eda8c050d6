import { isIP } from 'node:net';
import { HalError } from '@hal-ai/spec';
import type { Context, MiddlewareHandler } from 'hono';
import type { HalConfig } from '../config.js';

/** What the public origin is worked out from: `HAL_PUBLIC_URL` and the listen address. */
export type PublicOriginConfig = Pick<HalConfig, 'publicUrl' | 'host' | 'port'>;

interface NodeBindings {
  incoming?: { socket?: { localAddress?: string; localPort?: number } };
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** A host name as compared: lowercased, without IPv6 brackets or a trailing dot. */
function normaliseHostname(hostname: string): string {
  return hostname
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

function isLoopback(hostname: string): boolean {
  const name = normaliseHostname(hostname);
  return name === 'localhost' || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

/** The host name part of a `Host` header value (`name`, `name:port`, `[v6]:port`), or null when malformed. */
export function hostnameOfHeader(host: string | undefined): string | null {
  if (host === undefined) return null;
  const value = host.trim();
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match?.[1]) return null;
  return normaliseHostname(match[1]);
}

/** The socket's own address and port when the request came over Node's HTTP server. */
function localSocket(c: Context): { address: string; port: number } | null {
  const socket = (c.env as NodeBindings | undefined)?.incoming?.socket;
  if (!socket?.localAddress || !socket.localPort) return null;
  return { address: socket.localAddress.replace(/^::ffff:(?=\d+\.)/, ''), port: socket.localPort };
}

function formatHost(hostname: string): string {
  return hostname.includes(':') ? `[${hostname}]` : hostname;
}

/**
 * HAL's public origin (SPEC §14, issue #22 point 8): `HAL_PUBLIC_URL` when set, else the listen address as this
 * request reached it (`http://<HAL_HOST>:<port>`; with a wildcard `HAL_HOST`, the interface address the socket was
 * accepted on). Never taken from the request's `Host` or forwarded headers: URLs HAL hands out (the OAuth callback)
 * cannot be steered by a client.
 *
 * @example
 * const callbackUrl = `${publicOrigin(c, config)}/ops/ai/oauth/callback`;
 */
export function publicOrigin(c: Context, config: PublicOriginConfig): string {
  if (config.publicUrl) return config.publicUrl;
  const socket = localSocket(c);
  const host = WILDCARD_HOSTS.has(config.host) && socket ? socket.address : config.host;
  const port = socket?.port ?? config.port;
  return `http://${formatHost(normaliseHostname(host))}:${port}`;
}

/** The host names a request may name in its `Host` header (see {@link hostGuard}). */
export function allowedHostnames(c: Context, config: PublicOriginConfig): Set<string> {
  const allowed = new Set<string>();
  if (config.publicUrl) allowed.add(normaliseHostname(new URL(config.publicUrl).hostname));
  const listen = normaliseHostname(config.host);
  if (WILDCARD_HOSTS.has(config.host)) {
    // Every interface: the address this very socket was accepted on is the listen address the client reached.
    const socket = localSocket(c);
    if (socket) allowed.add(normaliseHostname(socket.address));
    for (const name of LOOPBACK_NAMES) allowed.add(name);
  } else {
    allowed.add(listen);
    // A loopback listener is reached as localhost too; no other site can be resolved onto these names.
    if (isLoopback(listen)) for (const name of LOOPBACK_NAMES) allowed.add(name);
  }
  return allowed;
}

/**
 * Refuses a request whose `Host` names neither the public origin (`HAL_PUBLIC_URL`) nor the listen address →
 * `400 validation_failed`: the groundwork against DNS rebinding, where a foreign site's name is resolved onto
 * HAL's address and the browser then treats HAL as that site. Host names are compared (not ports): a rebinding
 * page reaches the same port anyway, and a proxy in front of HAL may forward from another.
 *
 * @example
 * app.use('*', hostGuard(config));
 */
export function hostGuard(config: PublicOriginConfig): MiddlewareHandler {
  return async function hostGuard(c, next) {
    const hostname = hostnameOfHeader(c.req.header('host') ?? new URL(c.req.url).host);
    if (hostname === null || !allowedHostnames(c, config).has(hostname)) {
      throw new HalError('validation_failed', 'This host name does not serve HAL; use its public address', {
        details: { issues: [{ path: 'Host', message: 'not the public origin or the listen address' }] },
      });
    }
    return next();
  };
}
