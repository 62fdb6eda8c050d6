import type { MiddlewareHandler } from 'hono';

/** The Content-Security-Policy of every response: same-origin only, no inline script or style. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Settings of {@link securityHeaders}. */
export interface SecurityHeadersSettings {
  /**
   * `false` leaves out the Content-Security-Policy. Only for tests that prove the panel's sanitiser and the pages'
   * escaping hold by themselves (the hostile XSS suite runs its corpus with and without it); no configuration or
   * environment variable reaches it.
   */
  contentSecurityPolicy?: boolean;
}

/** Adds the security headers to every response, errors and 404s included. */
export function securityHeaders(settings: SecurityHeadersSettings = {}): MiddlewareHandler {
  const withPolicy = settings.contentSecurityPolicy !== false;
  return async function securityHeaders(c, next) {
    await next();
    const headers = c.res.headers;
    if (withPolicy) headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', 'same-origin');
    headers.set('X-Frame-Options', 'DENY');
  };
}
