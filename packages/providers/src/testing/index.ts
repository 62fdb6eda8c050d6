export { assistantContent, collectStreamParts, streamedText } from './collect-stream-parts.js';
export { createFakeAnthropic } from './fake-anthropic.js';
export { createFakeGemini, type FakeGeminiOptions } from './fake-gemini.js';
export type { FakeAuthorizationServer, FakeAuthorizationServerOptions } from './fake-oauth.js';
export { createFakeAuthorizationServer, followLogin } from './fake-oauth.js';
export { createFakeOpenAI, type FakeOpenAIOptions } from './fake-openai.js';
export {
  createFakeProxy,
  type FakeProxy,
  type FakeProxyOptions,
  type FakeProxyRequest,
} from './fake-proxy.js';
export type {
  FakeModel,
  FakeRequest,
  FakeServer,
  FakeServerOptions,
  FakeStep,
  FakeToolCall,
  FakeUsage,
} from './fake-server.js';
