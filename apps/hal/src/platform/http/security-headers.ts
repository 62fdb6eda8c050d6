import type { MiddlewareHandler } from 'hono';
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
 * Adds the security headers to every response, errors and 404s included: CSP, CORP, nosniff, Referrer-Policy,
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
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', 'same-origin');
    headers.set('X-Frame-Options', 'DENY');
    // Over plain http the header is meaningless to a browser and would only mislead a reader of the answer.
    if (isHttps(c, trustProxy)) headers.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    else headers.delete('Strict-Transport-Security');
  };
}
