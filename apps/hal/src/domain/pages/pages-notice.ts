import { createHmac } from 'node:crypto';
import { isMessageKey, type MessageKey, type NoticeCode, type Translator } from '@hal-ai/ui-panel/i18n';
import type { Context } from 'hono';
import { safeEqual } from '../../platform/http/csrf.js';
import type { AppEnv } from '../../platform/http/env.js';
import { stateText } from './pages-locale.js';

/*
 * A console action's success notice travels through its redirect as a catalogue code plus values
 * (`?notice=server_registered&notice.name=web-1&notice.sig=…`), never as text: each reader's page says it in their
 * language. The values are signed with the session's CSRF token (HMAC-SHA256), which a crafted link cannot know,
 * and an unknown code or a wrong signature shows nothing: a link can no longer put text of its choosing into the
 * green "done" line (the old `?notice=<free text>` could, and the page showed it word for word). The token is the
 * same on every HAL instance and survives a re-auth, so the next page verifies it wherever it is served.
 */

/** A success notice: its code (`notice_<code>` in the catalogue) and the values of its placeholders. */
export interface Notice {
  code: NoticeCode;
  values: Readonly<Record<string, string>>;
}

/** Where a console action sends the browser, with the notice the next page shows once. */
export interface NoticeRedirect {
  location: string;
  notice: Notice;
}

const PREFIX = 'notice.';
const SIGNATURE = `${PREFIX}sig`;
/** Longer values are not a name or an id HAL wrote: never shown. */
const MAX_VALUE = 200;

/**
 * A redirect with a notice (signed by {@link noticeLocation} when the handler answers).
 *
 * @example
 * withNotice('/ops/servers', 'server_registered', { name: server.name });
 */
export function withNotice(
  location: string,
  code: NoticeCode,
  values: Record<string, string | number> = {},
): NoticeRedirect {
  const strings = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
  return { location, notice: { code, values: strings } };
}

function signature(csrfToken: string, notice: Notice): string {
  const entries = Object.entries(notice.values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac('sha256', csrfToken)
    .update(JSON.stringify(['hal-notice', notice.code, entries]))
    .digest('base64url');
}

/** The redirect's location with its notice as signed query parameters. */
export function noticeLocation(c: Context<AppEnv>, redirect: NoticeRedirect): string {
  const query = new URLSearchParams({ notice: redirect.notice.code });
  for (const [name, value] of Object.entries(redirect.notice.values)) query.set(`${PREFIX}${name}`, value);
  query.set(SIGNATURE, signature(c.get('csrfToken'), redirect.notice));
  const separator = redirect.location.includes('?') ? '&' : '?';
  return `${redirect.location}${separator}${query.toString()}`;
}

/** The notice a page was asked with, or undefined when absent, unknown to this version, or not signed by us. */
export function readNotice(c: Context<AppEnv>): Notice | undefined {
  const url = new URL(c.req.url);
  const code = url.searchParams.get('notice');
  const presented = url.searchParams.get(SIGNATURE);
  if (!code || !presented || !isMessageKey(`notice_${code}`)) return undefined;
  const values: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (!name.startsWith(PREFIX) || name === SIGNATURE) continue;
    if (value.length > MAX_VALUE) return undefined;
    values[name.slice(PREFIX.length)] = value;
  }
  const notice = { code: code as NoticeCode, values };
  return safeEqual(presented, signature(c.get('csrfToken'), notice)) ? notice : undefined;
}

/** A notice's sentence in the page's language (a `{state}` value reads as that state's word). */
export function noticeText(t: Translator, notice: Notice): string {
  const values = { ...notice.values };
  if (values.state !== undefined) values.state = stateText(t, values.state);
  return t(`notice_${notice.code}` as MessageKey, values);
}
