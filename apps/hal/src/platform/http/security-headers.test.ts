import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, securityHeaders } from './security-headers.js';

function appWith(settings?: Parameters<typeof securityHeaders>[0]) {
  const app = new Hono();
  app.use('*', securityHeaders(settings));
  app.get('/page', (c) => c.html('<p>page</p>'));
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
