export { createFakeAnthropic } from './fake-anthropic.js';
export type {
  FakeModel,
  FakeRequest,
  FakeServer,
  FakeServerOptions,
  FakeStep,
  FakeToolCall,
  FakeUsage,
} from './fake-server.js';
