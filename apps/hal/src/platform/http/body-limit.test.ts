import { HalError } from '@hal-ai/spec';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { limitBody } from './body-limit.js';

function app(maxBytes: number) {
  const routes = new Hono();
  routes.onError((error, c) =>
    c.json(
      { code: HalError.isInstance(error) ? error.code : 'crash' },
      HalError.isInstance(error) ? 413 : 500,
    ),
  );
  routes.use('*', limitBody(maxBytes));
  routes.all('/echo', async (c) => c.text(await c.req.text()));
  return routes;
}

const streamOf = (...parts: string[]) =>
  new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = parts.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
  });

describe('limitBody', () => {
  it('passes a declared body within the limit untouched, and refuses a larger one before reading it', async () => {
    const routes = app(10);
    const ok = await routes.request('/echo', {
      method: 'POST',
      body: '12345',
      headers: { 'content-length': '5' },
    });
    expect(await ok.text()).toBe('12345');
    const big = await routes.request('/echo', {
      method: 'POST',
      body: streamOf('x'.repeat(11)),
      headers: { 'content-length': '11' },
      duplex: 'half',
    } as RequestInit);
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ code: 'payload_too_large' });
  });

  it('counts a body without a usable length as it streams', async () => {
    const routes = app(10);
    const over = await routes.request('/echo', {
      method: 'POST',
      body: streamOf('123456', '789012'),
      duplex: 'half',
    } as RequestInit);
    expect(over.status).toBe(413);
    const within = await routes.request('/echo', {
      method: 'POST',
      body: streamOf('1234', '5678'),
      duplex: 'half',
    } as RequestInit);
    expect(await within.text()).toBe('12345678');
  });
});
