import type { Context } from 'hono';
import type { AppEnv } from '../../platform/http/env.js';

/*
 * Where the language switch comes back to: the page the operator was on, with its query (a job filter, a cursor, a
 * signed success notice, which the next page verifies again and says in the new language). The form's `next`
 * field is the operator's to edit, so it is read as a console path of this HAL only: never an open redirect.
 */

/** The page's own address as the language switch's `next`: its path and query, without the host. */
export function requestedPath(c: Context<AppEnv>): string {
  const url = new URL(c.req.url);
  return `${url.pathname}${url.search}`;
}

/** A parse base no real host can have (`.invalid` is reserved): a `next` that names a host leaves it. */
const BASE = 'http://hal.invalid';
/** Console paths as HAL writes them: segments of ids, names and dots, nothing escaped. */
const CONSOLE_PATH = /^\/ops(\/[\w.-]+)*\/?$/;
/** A longer `next` is no address HAL rendered. */
const MAX_NEXT = 2048;

/**
 * `next` when it is a console page of this HAL (`/ops…`, with its query), re-serialised by the URL parser so no
 * control character or fragment survives; otherwise `/ops`. A scheme, a host (`//x`, `/\x`), a path outside
 * `/ops` (also through `..`) or anything unparsable goes home.
 *
 * @example
 * consolePathOrHome('/ops/servers?notice=server_registered'); // '/ops/servers?notice=server_registered'
 * consolePathOrHome('//127.0.0.2/ops'); // '/ops'
 */
export function consolePathOrHome(next: string | undefined): string {
  if (next === undefined || next.length > MAX_NEXT || !next.startsWith('/')) return '/ops';
  let parsed: URL;
  try {
    parsed = new URL(next, BASE);
  } catch {
    return '/ops';
  }
  if (parsed.origin !== BASE || !CONSOLE_PATH.test(parsed.pathname)) return '/ops';
  return `${parsed.pathname}${parsed.search}`;
}
