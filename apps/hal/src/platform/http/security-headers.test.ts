import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  allowOpenerFromCallback,
  CONTENT_SECURITY_POLICY,
  CROSS_ORIGIN_OPENER_POLICY,
  STRICT_TRANSPORT_SECURITY,
  securityHeaders,
} from './security-headers.js';

function appWith(settings?: Parameters<typeof securityHeaders>[0]) {
  const app = new Hono();
  app.use('*', securityHeaders(settings));
  app.get('/page', (c) => c.html('<p>page</p>'));
  app.get('/callback', (c) => {
    allowOpenerFromCallback(c);
    return c.html('<p>callback</p>');
  });
  app.get('/lax', (c) => {
    c.header('Cross-Origin-Opener-Policy', 'unsafe-none-please');
    return c.html('<p>lax</p>');
  });
  return app;
}

describe('securityHeaders', () => {
  it('sends the Content-Security-Policy by default', async () => {
    const response = await appWith().request('/page');
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('leaves only the policy out when a test turns it off; the other headers stay', async () => {
    const response = await appWith({ contentSecurityPolicy: false }).request('/page');
    expect(response.headers.get('content-security-policy')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
  });
});

describe('securityHeaders: resource and transport policies', () => {
  it('keeps resources same-origin (no other site may embed or read them)', async () => {
    const response = await appWith().request('http://127.0.0.1/page');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });

  it('sends HSTS only over https: TLS itself, or a trusted proxy that says so', async () => {
    const plain = await appWith().request('http://127.0.0.1/page');
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    const tls = await appWith().request('https://127.0.0.1/page');
    expect(tls.headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY);
    const forwarded = { headers: { 'x-forwarded-proto': 'https' } };
    // An untrusted X-Forwarded-Proto is anyone's word: no HSTS.
    const untrusted = await appWith().request('http://127.0.0.1/page', forwarded);
    expect(untrusted.headers.get('strict-transport-security')).toBeNull();
    const trusted = await appWith({ trustProxy: true }).request('http://127.0.0.1/page', forwarded);
    expect(trusted.headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY);
  });
});

describe('securityHeaders: opener policy', () => {
  it('isolates every page from foreign openers but keeps its own popups', async () => {
    const page = await appWith().request('/page');
    expect(CROSS_ORIGIN_OPENER_POLICY).toBe('same-origin-allow-popups');
    expect(page.headers.get('cross-origin-opener-policy')).toBe(CROSS_ORIGIN_OPENER_POLICY);
    const missing = await appWith().request('/nowhere');
    expect(missing.headers.get('cross-origin-opener-policy')).toBe(CROSS_ORIGIN_OPENER_POLICY);
  });

  it('sends unsafe-none only on the page marked as the OAuth callback, and no other value a handler set', async () => {
    const callback = await appWith().request('/callback');
    expect(callback.headers.get('cross-origin-opener-policy')).toBe('unsafe-none');
    const lax = await appWith().request('/lax');
    expect(lax.headers.get('cross-origin-opener-policy')).toBe(CROSS_ORIGIN_OPENER_POLICY);
  });
});
