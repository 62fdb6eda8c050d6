// Test support (not exported): the body of an OpenAI-compatible connection to a fake provider on 127.0.0.1, as the
// console posts it, for the tests that need a model behind HAL (doctor, proxy, kill -9).

/** `POST /ops/api/ai/connections` body for a connection named `name` to the fake at `baseUrl`. */
export function fakeOpenAIConnection(
  baseUrl: string,
  apiKey: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    provider: 'openai',
    name: 'GPT',
    auth: 'api_key',
    apiKey,
    baseUrl,
    model: 'gpt-test',
    identity: { role: 'reviewer', traits: '', instructions: '' },
    tools: { preset: 'none' },
    ...overrides,
  };
}
