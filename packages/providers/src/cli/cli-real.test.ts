// The real `claude` (2.1.197) and `codex` (0.171.0) CLIs from npm, driven by the adapter. Claude runs
// against the Anthropic fake on 127.0.0.1; Codex has no network here and never gives up, which is
// exactly what the timeout must handle. Every run gets an isolated HOME / CODEX_HOME.
import { spawn as nodeSpawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Prompt, StreamPart } from '@hal-ai/spec';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rejection } from '../shared/provider-rejection.test-support.js';
import { createFakeAnthropic, type FakeServer } from '../testing/index.js';
import { isAlive } from './cli-fake-bin.test-support.js';
import { createCliProvider } from './cli-language-model.js';
import type { CliSpawn } from './cli-process.js';
import { getCliStatus } from './cli-status.js';

const binDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin');
const claudeBin = path.join(binDir, 'claude');
const codexBin = path.join(binDir, 'codex');

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'hal-real-cli-home-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const prompt: Prompt = [
  { role: 'system', content: 'You are HAL, the operator console assistant.' },
  { role: 'user', content: [{ type: 'text', text: 'Say hello' }] },
];

/** Pids of every process still in a process group (Linux /proc); zombies do not count. */
async function groupMembers(groupId: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && Number(fields[2]) === groupId) members.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return members;
}

describe('real claude CLI', { timeout: 120_000 }, () => {
  let fake: FakeServer;
  const apiKey = randomBytes(24).toString('hex');
  beforeAll(async () => {
    fake = await createFakeAnthropic({ apiKey, respond: () => ({ text: 'Hello from the fake Anthropic.' }) });
  });
  afterAll(async () => {
    await fake.close();
  });

  const claudeEnv = (key: string) => ({
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: key,
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });

  it('--version and auth status (logged out with an isolated HOME)', async () => {
    const status = await getCliStatus('claude', { binPath: claudeBin, homedir: home, timeoutMs: 60_000 });
    expect(status).toMatchObject({ found: true, version: '2.1.197', loggedIn: false });
    expect(status.loginHint).toContain('claude auth login');
  });

  it('claude -p answers through the adapter (JSON and stream-json)', async () => {
    const provider = createCliProvider({
      tool: 'claude',
      binPath: claudeBin,
      homedir: home,
      extraEnv: claudeEnv(apiKey),
      timeoutMs: 60_000,
    });
    const model = provider.languageModel('claude-sonnet-4-5');
    const before = fake.requests.length;
    const result = await model.doGenerate({ prompt });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello from the fake Anthropic.' }]);
    expect(result.finishReason).toBe('stop');
    expect(result.usage?.outputTokens).toBeGreaterThan(0);

    const messages = fake.requests.slice(before).filter((request) => request.path === '/v1/messages');
    expect(messages.length).toBeGreaterThan(0);
    const body = messages.at(-1)?.body as { model: string; system?: unknown; tools?: unknown[] };
    expect(body.model).toBe('claude-sonnet-4-5');
    expect(JSON.stringify(body.system)).toContain('You are HAL, the operator console assistant.');
    // `--tools ""`: the CLI declares none of its built-in tools (Bash, Edit, …).
    expect(body.tools ?? []).toEqual([]);

    const { stream } = await model.doStream({ prompt });
    const parts: StreamPart[] = [];
    for await (const part of stream as unknown as AsyncIterable<StreamPart>) parts.push(part);
    const text = parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
    expect(text).toBe('Hello from the fake Anthropic.');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('a 401 from the API is an error (is_error), never model text', async () => {
    const model = createCliProvider({
      tool: 'claude',
      binPath: claudeBin,
      homedir: home,
      extraEnv: claudeEnv(randomBytes(24).toString('hex')),
      timeoutMs: 60_000,
    }).languageModel('claude-sonnet-4-5');
    const error = await rejection(model.doGenerate({ prompt }));
    expect(error.code).toBe('provider_auth');
  });

  it('a 500 from the API → provider_unavailable', async () => {
    fake.enqueue({ error: { status: 500, message: 'boom' } }, { error: { status: 500, message: 'boom' } });
    const model = createCliProvider({
      tool: 'claude',
      binPath: claudeBin,
      homedir: home,
      extraEnv: claudeEnv(apiKey),
      timeoutMs: 60_000,
    }).languageModel('claude-sonnet-4-5');
    const error = await rejection(model.doGenerate({ prompt }));
    expect(error.code).toBe('provider_unavailable');
  });
});

describe('real codex CLI', { timeout: 120_000 }, () => {
  let codexHome: string;
  beforeEach(async () => {
    codexHome = path.join(home, 'codex');
    await mkdir(codexHome);
  });

  it('--version and login status (answers on stderr) with an isolated CODEX_HOME', async () => {
    const status = await getCliStatus('codex', {
      binPath: codexBin,
      homedir: home,
      extraEnv: { CODEX_HOME: codexHome },
      timeoutMs: 60_000,
    });
    expect(status).toMatchObject({ found: true, version: '0.171.0', loggedIn: false });
    expect(status.loginHint).toContain('codex login');
  });

  it('a codex exec that waits for the network forever is killed on timeout, with its whole process group', async () => {
    const started: number[] = [];
    const spawn: CliSpawn = (command, args, options) => {
      const child = nodeSpawn(command, args, options);
      if (child.pid !== undefined) started.push(child.pid);
      return child;
    };
    const model = createCliProvider({
      tool: 'codex',
      binPath: codexBin,
      homedir: home,
      extraEnv: { CODEX_HOME: codexHome },
      timeoutMs: 6000,
      killGraceMs: 1000,
      spawn,
    }).languageModel('gpt-5.5');
    const error = await rejection(model.doGenerate({ prompt }));
    expect(error.code).toBe('provider_timeout');
    const [groupId] = started;
    expect(groupId).toBeDefined();
    await expect.poll(() => isAlive(groupId as number), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => groupMembers(groupId as number), { timeout: 10_000 }).toEqual([]);
  });
  it('codex exec answers through the adapter against a fake OpenAI Responses server; 401 → provider_auth', async () => {
    const fakeKey = randomBytes(24).toString('hex');
    const received: Array<{ authorization?: string; model?: string }> = [];
    const server: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const parsed = body ? (JSON.parse(body) as { model?: string }) : {};
        received.push({ authorization: request.headers.authorization, model: parsed.model });
        if (request.headers.authorization !== `Bearer ${fakeKey}`) {
          response.writeHead(401, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } }),
          );
          return;
        }
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (event: Record<string, unknown>) =>
          response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
        const message = { type: 'message', id: 'msg_1', role: 'assistant' };
        send({ type: 'response.created', response: { id: 'resp_1' } });
        send({
          type: 'response.output_item.added',
          output_index: 0,
          item: { ...message, status: 'in_progress', content: [] },
        });
        send({
          type: 'response.output_item.done',
          output_index: 0,
          item: {
            ...message,
            status: 'completed',
            content: [{ type: 'output_text', text: 'Hello from Codex.', annotations: [] }],
          },
        });
        send({
          type: 'response.completed',
          response: {
            id: 'resp_1',
            usage: {
              input_tokens: 12,
              input_tokens_details: { cached_tokens: 3 },
              output_tokens: 6,
              total_tokens: 18,
            },
          },
        });
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const codexConfig = {
      model_provider: '"fake"',
      'model_providers.fake.name': '"fake"',
      'model_providers.fake.base_url': `"http://127.0.0.1:${port}/v1"`,
      'model_providers.fake.env_key': '"FAKE_KEY"',
      'model_providers.fake.wire_api': '"responses"',
      'model_providers.fake.request_max_retries': '0',
      'model_providers.fake.stream_max_retries': '0',
    };
    try {
      const model = (key: string) =>
        createCliProvider({
          tool: 'codex',
          binPath: codexBin,
          homedir: home,
          extraEnv: { CODEX_HOME: codexHome, FAKE_KEY: key },
          codexConfig,
          timeoutMs: 60_000,
        }).languageModel('gpt-5.5');
      const result = await model(fakeKey).doGenerate({ prompt });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello from Codex.' }]);
      expect(result.usage).toMatchObject({ inputTokens: 12, cachedInputTokens: 3, outputTokens: 6 });
      expect(received.at(-1)?.model).toBe('gpt-5.5');

      const error = await rejection(model(randomBytes(24).toString('hex')).doGenerate({ prompt }));
      expect(error.code).toBe('provider_auth');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
