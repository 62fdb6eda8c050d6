export { collectStreamParts, streamedText } from './collect-stream-parts.js';
export { createFakeAnthropic } from './fake-anthropic.js';
export { createFakeGemini } from './fake-gemini.js';
export type { FakeAuthorizationServer, FakeAuthorizationServerOptions } from './fake-oauth.js';
export { createFakeAuthorizationServer, followLogin } from './fake-oauth.js';
export { createFakeOpenAI } from './fake-openai.js';
export type {
  FakeModel,
  FakeRequest,
  FakeServer,
  FakeServerOptions,
  FakeStep,
  FakeToolCall,
  FakeUsage,
} from './fake-server.js';
