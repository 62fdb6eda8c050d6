import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProvider } from '../provider-registry.js';
import { createFakeAnthropic } from '../testing/fake-anthropic.js';
import { createFakeGemini } from '../testing/fake-gemini.js';
import { createFakeOpenAI } from '../testing/fake-openai.js';
import {
  canRefreshOAuthClient,
  credentialsFromOAuthToken,
  tokensFromOpenRouterKey,
} from './connection-credentials.js';
import { resolveOAuthClient } from './connection-oauth-client.js';

const token = () => randomBytes(24).toString('base64url');

describe('credentialsFromOAuthToken', () => {
  it('sends Anthropic and Gemini tokens as Bearer, OpenAI-compatible ones as the key', () => {
    const accessToken = token();
    expect(credentialsFromOAuthToken('anthropic', accessToken)).toEqual({ authToken: accessToken });
    expect(credentialsFromOAuthToken('gemini', accessToken)).toEqual({ authToken: accessToken });
    for (const provider of ['openai', 'openrouter', 'other'] as const) {
      expect(credentialsFromOAuthToken(provider, accessToken)).toEqual({ apiKey: accessToken });
    }
  });

  it('authenticates each provider’s real wire calls with the token as Bearer', async () => {
    const accessToken = token();
    const anthropic = await createFakeAnthropic({ apiKey: accessToken, models: [{ id: 'claude-test' }] });
    const gemini = await createFakeGemini({ apiKey: accessToken, models: [{ id: 'gemini-test' }] });
    const openai = await createFakeOpenAI({ apiKey: accessToken, models: [{ id: 'gpt-test' }] });
    try {
      const anthropicModels = await createProvider({
        provider: 'anthropic',
        baseUrl: anthropic.url,
        ...credentialsFromOAuthToken('anthropic', accessToken),
      }).listModels();
      expect(anthropicModels.map((model) => model.id)).toEqual(['claude-test']);
      const geminiModels = await createProvider({
        provider: 'gemini',
        baseUrl: gemini.url,
        ...credentialsFromOAuthToken('gemini', accessToken),
      }).listModels();
      expect(geminiModels.map((model) => model.id)).toEqual(['gemini-test']);
      const openaiModels = await createProvider({
        provider: 'other',
        baseUrl: openai.baseUrl,
        ...credentialsFromOAuthToken('other', accessToken),
      }).listModels();
      expect(openaiModels.map((model) => model.id)).toEqual(['gpt-test']);
      for (const fake of [anthropic, gemini, openai]) {
        const headers = fake.requests[0]?.headers ?? {};
        expect(headers.authorization).toBe(`Bearer ${accessToken}`);
        // Never in a key header, where a gateway would not look for it.
        expect(headers['x-api-key']).toBeUndefined();
        expect(headers['x-goog-api-key']).toBeUndefined();
      }
    } finally {
      await Promise.all([anthropic.close(), gemini.close(), openai.close()]);
    }
  });
});

describe('OpenRouter key issuance', () => {
  it('keeps the issued key as a token that never expires or refreshes', () => {
    const key = token();
    expect(tokensFromOpenRouterKey({ key, userId: 'user-1' })).toEqual({ accessToken: key });
    expect(canRefreshOAuthClient(resolveOAuthClient('openrouter'))).toBe(false);
    expect(canRefreshOAuthClient(resolveOAuthClient('gemini', { clientId: 'c' }))).toBe(true);
  });
});
