import { HalError, type WebContextBlock, type WebContextErrorBlock } from '@hal-ai/spec';
import {
  blockedAddressReason,
  createWebCache,
  createWebFetcher,
  extractMessageUrls,
  isBlockedAddress,
  isIpLiteral,
  normaliseWebUrl,
  toWebContextBlock,
  type WebFetcher,
  type WebFetcherSettings,
  type WebPage,
} from '@hal-ai/web';
import type { HalCore } from '../../domain/core/hal-core.js';
import type { HalConfig } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import { type PanelRouteDeps, readPanelPrefs } from '../panel-routes.js';

/** HAL's web access: the linked pages of operator messages and the `web_fetch` tool, over one fetcher. */
export interface HalWebAccess {
  /**
   * The `context` blocks for an operator message: its links (at most 2, none from a slash command) fetched in
   * parallel, each a page or an error block — never a throw. Empty when `web.auto_fetch` is off or the operator
   * switched it off in the panel.
   */
  contextBlocks(text: string, operatorId: string): Promise<Array<WebContextBlock | WebContextErrorBlock>>;
  /** One page for `web_fetch` (the same fetcher and cache). Throws `HalError` with a `web_*` code. */
  fetchPage(url: string): Promise<WebPage>;
  /**
   * Refuses what is refused without any resolution: a bad scheme, credentials, a port the fetcher does not use,
   * or an IP literal in a refused range. A name is never checked here — its addresses are checked once, where the
   * socket connects. Throws `HalError` (`web_blocked`, `web_fetch_failed`).
   */
  refuseEarly(url: string): void;
  /** Whether a URL's host is on `web.allowed_hosts` (a `web_fetch` there runs without a proposal). */
  isAllowedHost(url: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Settings of {@link createHalWebAccess}. */
export interface HalWebAccessSettings {
  /** The fetcher (default: one built from the config, with a 5-minute cache of 50 pages). */
  fetcher?: WebFetcher;
  /** Extra fetcher settings for the default fetcher (resolver, dial for an outbound proxy, timeouts). */
  fetcherSettings?: WebFetcherSettings;
}

/**
 * Reads `web.allowed_hosts`: host names separated by commas or spaces; `*.example.com` also allows every subdomain
 * (not `example.com` itself). Case and a trailing dot do not matter.
 *
 * @example
 * parseAllowedHosts('docs.example.com, *.wiki.example'); // ['docs.example.com', '*.wiki.example']
 */
export function parseAllowedHosts(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
    .filter((entry) => entry !== '' && entry !== '*' && entry !== '*.');
}

/** Whether a URL host (WHATWG-normalised) matches one of the allowed entries. */
export function hostIsAllowed(hostname: string, allowed: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) =>
    entry.startsWith('*.') ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry,
  );
}

/** What HAL's web access uses: the settings it reads, the operators' link preference and the private-address switch. */
export interface HalWebAccessDeps extends PanelRouteDeps {
  core: HalCore;
  config: Pick<HalConfig, 'webAllowPrivate'>;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Builds HAL's web access from the app's deps: the fetcher follows `HAL_WEB_ALLOW_PRIVATE` (and says so loudly
 * when it is on), its cache belongs to this host, and the switches are the `web.auto_fetch` setting and the
 * operator's panel preference.
 *
 * @example
 * const web = createHalWebAccess(deps);
 * const blocks = await web.contextBlocks('what does https://example.com/notes say?', operator.id);
 */
export function createHalWebAccess(
  deps: HalWebAccessDeps,
  settings: HalWebAccessSettings = {},
): HalWebAccess {
  const allowPrivate = deps.config.webAllowPrivate;
  if (allowPrivate && !settings.fetcher) {
    deps.logger.warn(
      { variable: 'HAL_WEB_ALLOW_PRIVATE' },
      'HAL_WEB_ALLOW_PRIVATE=1: web fetches may reach loopback and private addresses (never the metadata address)',
    );
  }
  const fetcher =
    settings.fetcher ??
    createWebFetcher({
      cache: createWebCache(),
      allowPrivate,
      clock: () => new Date(deps.clock.now()),
      ...settings.fetcherSettings,
    });
  const setting = (key: string) => deps.core.settings.value(key);
  // The URL rules the fetcher applies (its ports), so an early refusal never disagrees with the fetch itself.
  const allowedPorts = settings.fetcherSettings?.allowedPorts;
  const urlOptions = allowedPorts ? { allowedPorts } : {};

  return {
    async contextBlocks(text, operatorId) {
      const urls = extractMessageUrls(text);
      if (urls.length === 0) return [];
      const [global, prefs] = await Promise.all([
        setting('web.auto_fetch'),
        readPanelPrefs(deps, operatorId),
      ]);
      if (global === false || !prefs.webAutoFetch) return [];
      return Promise.all(
        urls.map((url) =>
          fetcher.fetchPage(url).then(
            (page) => toWebContextBlock(url, { page }),
            (error: unknown) => toWebContextBlock(url, { error }),
          ),
        ),
      );
    },
    fetchPage: (url) => fetcher.fetchPage(url),
    refuseEarly(url) {
      const host = normaliseWebUrl(url, urlOptions).hostname.replace(/^\[|\]$/g, '');
      if (isIpLiteral(host) && isBlockedAddress(host, { allowPrivate })) {
        throw new HalError(
          'web_blocked',
          `${host} is a ${blockedAddressReason(host)} address; HAL does not fetch it`,
        );
      }
    },
    async isAllowedHost(url) {
      let hostname: string;
      try {
        hostname = normaliseWebUrl(url, urlOptions).hostname;
      } catch {
        return false;
      }
      return hostIsAllowed(hostname, parseAllowedHosts(await setting('web.allowed_hosts')));
    },
    close: () => fetcher.close(),
  };
}
