import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config.js';
import { createLogger } from '../../platform/logger.js';
import { type RunningServer, startServer } from '../../server.js';
import { eventually } from './room-app.test-support.js';

let dataDir: string;
let fake: FakeServer;
let apiKey: string;
let running: RunningServer | undefined;

beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-rooms-server-'));
  apiKey = randomBytes(24).toString('base64url');
  fake = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-test' }] });
});

afterEach(async () => {
  await running?.close();
  running = undefined;
  await fake.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('hal serve with the AI rooms', () => {
  it('wires rooms to connections, tools and the real skill document over real HTTP', async () => {
    let printed = '';
    running = await startServer({
      config: loadConfig({ HAL_DATA_DIR: dataDir, HAL_PORT: '0', HAL_VAULT_KEY: undefined }),
      logger: createLogger({ level: 'silent' }),
      output: { write: (text: string) => (printed += text) },
    });
    const password = /password: (\S+)/.exec(printed)?.[1] as string;
    const login = await fetch(`${running.url}/ops/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: running.url },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(login.status).toBe(200);
    const cookie = /hal_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0] as string;
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const call = async (method: string, pathname: string, json?: unknown) => {
      const response = await fetch(`${running?.url}${pathname}`, {
        method,
        headers: {
          cookie,
          'x-csrf-token': csrfToken,
          origin: running?.url ?? '',
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      return { status: response.status, body: await response.json() };
    };

    const created = await call('POST', '/ops/api/ai/connections', {
      provider: 'openai',
      name: 'GPT',
      auth: 'api_key',
      apiKey,
      baseUrl: fake.baseUrl,
      model: 'gpt-test',
      identity: { role: 'reviewer', traits: '', instructions: '' },
      tools: { preset: 'read_only' },
    });
    expect(created.status).toBe(201);
    const rooms = await eventually(async () => {
      const listed = (await call('GET', '/ops/api/ai/rooms')).body.rooms;
      expect(listed.map((room: { title: string }) => room.title)).toEqual(['통합', 'GPT']);
      return listed;
    });

    fake.enqueue({ toolCall: { name: 'hal_health', input: {} } }, { text: 'HAL is healthy.' });
    const sent = await call('POST', `/ops/api/ai/rooms/${rooms[0].id}/messages`, { text: '상태?' });
    expect(sent.status).toBe(202);
    const body = await eventually(async () => {
      const result = (await call('GET', `/ops/api/ai/rooms/${rooms[0].id}/messages?after=0`)).body;
      expect(result.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'complete' });
      return result;
    });
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    const chat = fake.requests.filter((request) => request.method === 'POST');
    const first = JSON.stringify(chat[0]?.body);
    expect(first).toContain('You are working inside **HAL**');
    // read_only: only read tools are declared to the provider.
    const declared = (
      (chat[0]?.body ?? { tools: [] }) as { tools: Array<{ function: { name: string } }> }
    ).tools.map((tool) => tool.function.name);
    expect(declared).toContain('hal_health');
    expect(declared).not.toContain('hal_server_delete');
    expect(declared).not.toContain('hal_incident_open');
    expect(JSON.stringify(chat[1]?.body)).toContain('uptimeS');
  });
});
