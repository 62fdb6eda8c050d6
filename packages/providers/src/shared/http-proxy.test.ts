import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropic } from '../anthropic/anthropic-provider.js';
import { createGemini } from '../gemini/gemini-provider.js';
import { refreshTokens } from '../oauth/oauth-tokens.js';
import {
  collectStreamParts,
  createFakeAnthropic,
  createFakeAuthorizationServer,
  createFakeGemini,
  createFakeProxy,
  type FakeProxy,
  type FakeServer,
} from '../testing/index.js';
import { createDispatcherFetch, createProxyDispatcher } from './http-proxy.js';

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];

describe('provider calls through HTTP_PROXY / HTTPS_PROXY / NO_PROXY', () => {
  let fake: FakeServer;
  let proxy: FakeProxy;
  const apiKey = `key-${randomBytes(16).toString('hex')}`;
  const target = () => new URL(fake.url).host;

  beforeEach(async () => {
    fake = await createFakeAnthropic({ apiKey, models: [{ id: 'claude-a' }] });
    proxy = await createFakeProxy();
  });
  afterEach(async () => {
    await fake.close();
    await proxy.close();
  });

  it('a model call and the model list go through the proxy named by HTTP_PROXY', async () => {
    // NO_PROXY='' on purpose: a default that exempts loopback would let the call bypass the proxy.
    const dispatcher = createProxyDispatcher({ HTTP_PROXY: proxy.url, NO_PROXY: '' });
    const anthropic = createAnthropic({ apiKey, baseUrl: fake.url, dispatcher });
    fake.enqueue({ text: 'via the proxy' });
    const parts = await collectStreamParts(
      (await anthropic.languageModel('claude-a').doStream({ prompt })).stream,
    );
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(await anthropic.listModels()).toEqual([{ id: 'claude-a', displayName: 'claude-a' }]);
    expect(proxy.requests.length).toBeGreaterThanOrEqual(1);
    expect(
      proxy.requests.every((request) => request.method === 'CONNECT' && request.target === target()),
    ).toBe(true);
    expect(fake.requests.map((request) => request.path)).toEqual(['/v1/messages', '/v1/models']);
  });

  it('the lower-case variable wins, and HTTPS_PROXY alone does not catch an http: target', async () => {
    const direct = createProxyDispatcher({ HTTPS_PROXY: proxy.url, NO_PROXY: '' });
    await createAnthropic({ apiKey, baseUrl: fake.url, dispatcher: direct }).listModels();
    expect(proxy.requests).toEqual([]);
    const lower = createProxyDispatcher({
      http_proxy: proxy.url,
      HTTP_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '',
    });
    await createAnthropic({ apiKey, baseUrl: fake.url, dispatcher: lower }).listModels();
    expect(proxy.requests).toHaveLength(1);
  });

  it('NO_PROXY sends the listed hosts direct; no variables at all means direct, whatever the process has', async () => {
    for (const env of [
      { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      { HTTP_PROXY: proxy.url, NO_PROXY: '*' },
      {},
    ]) {
      await createAnthropic({
        apiKey,
        baseUrl: fake.url,
        dispatcher: createProxyDispatcher(env),
      }).listModels();
    }
    expect(proxy.requests).toEqual([]);
    expect(fake.requests).toHaveLength(3);
  });

  it('a proxy that refuses is provider_unavailable, and nothing reaches the provider', async () => {
    const refusing = await createFakeProxy({ refuseWith: 403 });
    try {
      const dispatcher = createProxyDispatcher({ HTTP_PROXY: refusing.url, NO_PROXY: '' });
      const gemini = await createFakeGemini({ apiKey });
      try {
        const model = createGemini({ apiKey, baseUrl: gemini.url, dispatcher }).languageModel(
          'gemini-2.5-flash',
        );
        const parts = await collectStreamParts((await model.doStream({ prompt })).stream);
        expect(parts).toEqual([
          {
            type: 'error',
            error: expect.objectContaining({
              code: 'provider_unavailable',
              message: expect.stringContaining('the proxy refused (HTTP 403)'),
            }),
          },
        ]);
        await expect(
          createAnthropic({ apiKey, baseUrl: fake.url, dispatcher }).listModels(),
        ).rejects.toMatchObject({ code: 'provider_unavailable' });
        // Refused once each: a refusal is not retried.
        expect(refusing.requests).toHaveLength(2);
        expect(gemini.requests).toEqual([]);
        expect(fake.requests).toEqual([]);
      } finally {
        await gemini.close();
      }
    } finally {
      await refusing.close();
    }
  });

  it('OAuth token calls follow the same proxy through createDispatcherFetch', async () => {
    const authorization = await createFakeAuthorizationServer();
    try {
      const fetch = createDispatcherFetch(createProxyDispatcher({ HTTP_PROXY: proxy.url, NO_PROXY: '' }));
      const tokens = await refreshTokens({
        tokenUrl: `${authorization.url}/token`,
        clientId: authorization.clientId,
        clientSecret: authorization.clientSecret,
        refreshToken: authorization.issueRefreshToken(),
        allowInsecureRequests: true,
        fetch,
      });
      expect(tokens.accessToken).toBe(authorization.issuedAccessTokens.at(-1));
      expect(proxy.requests).toEqual([{ method: 'CONNECT', target: new URL(authorization.url).host }]);
    } finally {
      await authorization.close();
    }
  });
});
