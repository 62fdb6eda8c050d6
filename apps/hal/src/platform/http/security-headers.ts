import type { Context, MiddlewareHandler } from 'hono';
import { isHttps } from './client-address.js';

/** The Content-Security-Policy of every response: same-origin only, no inline script or style. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * The Strict-Transport-Security of an https response: one year, this host only (HAL may share a domain with sites
 * that are not on https yet, so no `includeSubDomains`, and no `preload` an operator did not ask for).
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/**
 * The Cross-Origin-Opener-Policy of every answer: a page HAL serves keeps no `window.opener` link to (and cannot be
 * reached through one from) a window of another origin, but the popups it opens itself (the OAuth login) keep theirs.
 */
export const CROSS_ORIGIN_OPENER_POLICY = 'same-origin-allow-popups';

/**
 * The one exception to {@link CROSS_ORIGIN_OPENER_POLICY}: the OAuth callback page. It is reached by a redirect from
 * the provider inside the popup, and a policy other than `unsafe-none` there would put it in a new browsing context
 * group, cutting the `window.opener` it needs to post the result back to the panel.
 */
export const OPENER_POLICY_FOR_CALLBACK = 'unsafe-none';

/**
 * Marks an answer as the OAuth callback page, so {@link securityHeaders} sends `unsafe-none` as its opener policy.
 * Only a route that must report to its opener calls it.
 */
export function allowOpenerFromCallback(c: Context): void {
  c.header('Cross-Origin-Opener-Policy', OPENER_POLICY_FOR_CALLBACK);
}

/** Settings of {@link securityHeaders}. */
export interface SecurityHeadersSettings {
  /**
   * `false` leaves out the Content-Security-Policy. Only for tests that prove the panel's sanitiser and the pages'
   * escaping hold by themselves (the hostile XSS suite runs its corpus with and without it); no configuration or
   * environment variable reaches it.
   */
  contentSecurityPolicy?: boolean;
  /**
   * `HAL_TRUST_PROXY`: a request whose trusted `X-Forwarded-Proto` says https counts as https, so it gets HSTS
   * (TLS ends at the proxy). Without it only a request that reached HAL itself over TLS does.
   */
  trustProxy?: boolean;
}

/**
 * Adds the security headers to every response, errors and 404s included: CSP, COOP, CORP, nosniff, Referrer-Policy,
 * X-Frame-Options, and HSTS when the request came over https.
 */
export function securityHeaders(settings: SecurityHeadersSettings = {}): MiddlewareHandler {
  const withPolicy = settings.contentSecurityPolicy !== false;
  const trustProxy = settings.trustProxy === true;
  return async function securityHeaders(c, next) {
    await next();
    const headers = c.res.headers;
    if (withPolicy) headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    headers.set('Cross-Origin-Resource-Policy', 'same-origin');
    // Only the callback's `unsafe-none` is honoured; any other value a handler set is replaced by the policy.
    if (headers.get('Cross-Origin-Opener-Policy') !== OPENER_POLICY_FOR_CALLBACK) {
      headers.set('Cross-Origin-Opener-Policy', CROSS_ORIGIN_OPENER_POLICY);
    }
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', 'same-origin');
    headers.set('X-Frame-Options', 'DENY');
    // Over plain http the header is meaningless to a browser and would only mislead a reader of the answer.
    if (isHttps(c, trustProxy)) headers.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    else headers.delete('Strict-Transport-Security');
  };
}
