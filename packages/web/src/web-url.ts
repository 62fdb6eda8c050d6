import { HalError } from '@hal-ai/spec';

/** The ports a fetch may use unless the host allows more (SPEC §10). */
export const DEFAULT_WEB_PORTS: readonly number[] = [80, 443];

/** Options of {@link normaliseWebUrl}. */
export interface NormaliseWebUrlOptions {
  /** Ports a URL may name (default 80 and 443). */
  allowedPorts?: readonly number[];
}

/**
 * Parses a URL the WHATWG way (so `http://2130706433/`, `http://0x7f.1/` and `http://[::ffff:7f00:1]/` become the
 * canonical address they stand for) and applies the URL half of the fetch policy: http/https only, no userinfo
 * (credentials are never sent), ports 80/443 only, no fragment. The address half is checked where the socket
 * connects, never here by name.
 *
 * @throws HalError `web_fetch_failed` for text that is not a URL; `web_blocked` for a refused scheme, userinfo or port.
 *
 * @example
 * normaliseWebUrl('https://Example.com:443/a#top').href; // 'https://example.com/a'
 */
export function normaliseWebUrl(input: string, options: NormaliseWebUrlOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new HalError('web_fetch_failed', `Not a URL: ${JSON.stringify(input.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HalError('web_blocked', `Only http and https URLs are fetched, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new HalError('web_blocked', 'URLs with credentials (user:password@) are not fetched');
  }
  if (url.hostname === '') throw new HalError('web_fetch_failed', 'The URL has no host');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!(options.allowedPorts ?? DEFAULT_WEB_PORTS).includes(port)) {
    throw new HalError(
      'web_blocked',
      `Port ${port} is not fetched (only ${formatPorts(options.allowedPorts)})`,
    );
  }
  url.hash = '';
  return url;
}

function formatPorts(ports: readonly number[] = DEFAULT_WEB_PORTS): string {
  return ports.join(' and ');
}
