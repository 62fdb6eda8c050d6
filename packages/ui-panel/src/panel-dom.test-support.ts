import type { Action, Connection, RoomMessage } from '@hal-ai/spec';
import { JSDOM } from 'jsdom';
import { createFormatters, createTranslator, resolveLocale } from './i18n/index.js';
import { createMarkdownRenderer } from './panel-markdown.js';
import type { RenderContext } from './panel-render.js';

/** A fresh jsdom window (no globals touched). */
export function createTestWindow(): JSDOM['window'] {
  return new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://127.0.0.1/' }).window;
}

/** A render context over a fresh jsdom document. */
export function createTestContext(connections: Connection[] = [], locale = 'ko'): RenderContext {
  const window = createTestWindow();
  return {
    document: window.document,
    t: createTranslator(resolveLocale(locale)),
    format: createFormatters(resolveLocale(locale), { timeZone: 'UTC' }),
    markdown: createMarkdownRenderer({ window: window as never }),
    connections: new Map(connections.map((connection) => [connection.id, connection])),
  };
}

/** A connection view with test defaults. */
export function testConnection(overrides: Partial<Connection> = {}): Connection {
  return {
    id: 'c1',
    name: 'claude',
    provider: 'anthropic',
    auth: 'api_key',
    baseUrl: null,
    model: 'm1',
    models: ['m1'],
    identity: { role: '', traits: '', instructions: '' },
    tools: { preset: 'all', enabled: [] },
    reasoning: 'off',
    status: 'active',
    lastCheckedAt: null,
    lastError: null,
    secret: { hasKey: true, hint: '…abcd' },
    ...overrides,
  };
}

/** A room message with test defaults. */
export function testMessage(overrides: Partial<RoomMessage> = {}): RoomMessage {
  return {
    id: 'm1',
    roomId: 'r1',
    seq: 1,
    role: 'assistant',
    connectionId: 'c1',
    model: 'm1',
    content: [{ type: 'text', text: 'hello' }],
    status: 'complete',
    error: null,
    relayDepth: 0,
    relayedFrom: null,
    usage: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** An action with test defaults. */
export function testAction(overrides: Partial<Action> = {}): Action {
  return {
    id: 'a1',
    roomId: 'r1',
    connectionId: 'c1',
    source: 'model',
    tool: 'hal_server_isolate',
    args: { serverId: 'srv-1', reason: 'test' },
    risk: 'high',
    identifiers: ['srv-1'],
    status: 'proposed',
    createdAt: '2026-01-01T00:00:00.000Z',
    decidedBy: null,
    decidedAt: null,
    result: null,
    error: null,
    tainted: false,
    ...overrides,
  };
}
