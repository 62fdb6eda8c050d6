import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LanguageModel, Prompt } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejection } from '../shared/provider-rejection.test-support.js';
import { collectStreamParts as readAll } from '../testing/collect-stream-parts.js';
import type { CliTool } from './cli-discovery.js';
import {
  createFakeBinDir,
  type FakeBehaviour,
  type FakeBinDir,
  isAlive,
} from './cli-fake-bin.test-support.js';
import { type CliProviderSettings, createCliProvider } from './cli-language-model.js';

let bins: FakeBinDir;
beforeEach(async () => {
  bins = await createFakeBinDir();
});
afterEach(async () => {
  await bins.cleanup();
});

const hello: Prompt = [
  { role: 'system', content: 'You are HAL.' },
  { role: 'user', content: [{ type: 'text', text: 'Say hello' }] },
];

function claudeResult(fields: Record<string, unknown>): string {
  return JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    api_error_status: null,
    result: 'Hello!',
    stop_reason: 'end_turn',
    session_id: 'session-1',
    usage: { input_tokens: 11, output_tokens: 5, cache_read_input_tokens: 2 },
    ...fields,
  });
}

/** Installs a fake executable of `tool` and returns a model of a provider that runs it. */
async function fakeCliModel(
  tool: CliTool,
  behaviour: FakeBehaviour,
  settings: Omit<CliProviderSettings, 'tool' | 'binPath'> = {},
  modelId = tool === 'claude' ? 'sonnet' : 'gpt-5.5',
): Promise<LanguageModel> {
  const bin = await bins.install(tool, behaviour);
  return createCliProvider({ tool, binPath: bin, ...settings }).languageModel(modelId);
}

/** A model whose CLI never answers, killed after a short grace period. */
function hangingModel(tool: CliTool, timeoutMs: number): Promise<LanguageModel> {
  return fakeCliModel(tool, { hang: true }, { timeoutMs, killGraceMs: 500 });
}

describe('createCliProvider — claude (fake executable)', () => {
  it('runs claude -p with JSON output and returns text and usage', async () => {
    const model = await fakeCliModel(
      'claude',
      { runStdout: ['a notice line', claudeResult({})] },
      { env: { PATH: '/usr/bin:/bin' } },
    );
    const result = await model.doGenerate({ prompt: hello });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toEqual({ inputTokens: 11, outputTokens: 5, cachedInputTokens: 2 });
    expect(model.provider).toBe('local-cli');

    const [call] = await bins.calls();
    expect(call?.argv).toEqual([
      '-p',
      '--output-format',
      'json',
      '--model',
      'sonnet',
      '--no-session-persistence',
      '--tools',
      '',
      '--append-system-prompt',
      'You are HAL.',
      '--',
      'Say hello',
    ]);
    // A fresh directory, removed afterwards.
    expect(path.basename(call?.cwd ?? '')).toMatch(/^hal-claude-/);
    expect(existsSync(call?.cwd ?? '')).toBe(false);
  });

  it('is_error: true with subtype "success" is an error, never text (401 → provider_auth)', async () => {
    const model = await fakeCliModel('claude', {
      runStdout: [
        claudeResult({
          is_error: true,
          api_error_status: 401,
          result: 'Invalid API key · Fix external API key',
        }),
      ],
      runExit: 1,
    });
    const error = await rejection(model.doGenerate({ prompt: hello }));
    expect(error.code).toBe('provider_auth');
    expect(error.message).toContain('Invalid API key');

    const { stream } = await model.doStream({ prompt: hello });
    const parts = await readAll(stream);
    expect(parts.filter((part) => part.type === 'text-delta')).toEqual([]);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'provider_auth' } });
  });

  it('is_error even with exit 0 is an error; 500 → provider_unavailable', async () => {
    const model = await fakeCliModel('claude', {
      runStdout: [claudeResult({ is_error: true, api_error_status: 500, result: 'API Error: 500 boom' })],
    });
    expect((await rejection(model.doGenerate({ prompt: hello }))).code).toBe('provider_unavailable');
  });

  it('"Not logged in" → cli_not_logged_in with the login hint', async () => {
    const model = await fakeCliModel('claude', {
      runStdout: [claudeResult({ is_error: true, result: 'Not logged in · Please run /login' })],
      runExit: 1,
    });
    const error = await rejection(model.doGenerate({ prompt: hello }));
    expect(error.code).toBe('cli_not_logged_in');
    expect(error.details.loginHint).toContain('claude auth login');
  });

  it('garbage output with a non-zero exit → provider_bad_response', async () => {
    const model = await fakeCliModel('claude', { runStdout: ['not json'], runStderr: 'crashed', runExit: 3 });
    const error = await rejection(model.doGenerate({ prompt: hello }));
    expect(error.code).toBe('provider_bad_response');
  });

  it('streams text deltas from stream-json and finishes with usage', async () => {
    const event = (inner: Record<string, unknown>) =>
      JSON.stringify({ type: 'stream_event', event: inner, parent_tool_use_id: null, session_id: 's' });
    const model = await fakeCliModel(
      'claude',
      {
        runStdout: [
          JSON.stringify({ type: 'system', subtype: 'init' }),
          event({ type: 'message_start', message: { id: 'm' } }),
          event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
          JSON.stringify({
            type: 'stream_event',
            parent_tool_use_id: 'sub',
            event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'SUBAGENT' } },
          }),
          event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } }),
          event({ type: 'content_block_stop', index: 0 }),
          claudeResult({ result: 'Hello' }),
        ],
      },
      {},
      'opus',
    );
    const parts = await readAll((await model.doStream({ prompt: hello })).stream);
    expect(parts.map((part) => part.type)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'finish',
    ]);
    const text = parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
    expect(text).toBe('Hello');
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 11, outputTokens: 5, cachedInputTokens: 2 },
    });
    const [call] = await bins.calls();
    expect(call?.argv.slice(0, 5)).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
    ]);
  });

  it('passes only the minimal environment: a parent secret never reaches the CLI', async () => {
    const secret = randomBytes(16).toString('hex');
    const bin = await bins.install('claude', { runStdout: [claudeResult({})] });
    const parentEnv = {
      PATH: '/usr/bin:/bin',
      HOME: '/home/hal',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      HAL_VAULT_KEY: secret,
      ANTHROPIC_API_KEY: secret,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    };
    await createCliProvider({
      tool: 'claude',
      binPath: bin,
      env: parentEnv,
      allowEnv: ['ANTHROPIC_BASE_URL'],
      extraEnv: { CLAUDE_CODE_MAX_RETRIES: '0' },
    })
      .languageModel('sonnet')
      .doGenerate({ prompt: hello });
    const [call] = await bins.calls();
    const env = call?.env ?? {};
    expect(JSON.stringify(env)).not.toContain(secret);
    expect(env.HAL_VAULT_KEY).toBeUndefined();
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env).toMatchObject({
      HOME: '/home/hal',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      CLAUDE_CODE_MAX_RETRIES: '0',
    });
    expect(env.PATH?.startsWith('/usr/bin:/bin')).toBe(true);
  });

  it('sends a long prompt on stdin instead of argv', async () => {
    const bin = await bins.install('claude', { runStdout: [claudeResult({})] });
    const long = 'x'.repeat(2000);
    await createCliProvider({ tool: 'claude', binPath: bin, maxArgumentPromptBytes: 1000 })
      .languageModel('sonnet')
      .doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: long }] }] });
    const [call] = await bins.calls();
    expect(call?.argv).not.toContain(long);
    expect(call?.stdin).toBe(long);
  });

  it('attaches an MCP server: config file, strict mode and allowed tools', async () => {
    const bin = await bins.install('claude', { runStdout: [claudeResult({})] });
    await createCliProvider({
      tool: 'claude',
      binPath: bin,
      mcp: {
        command: 'hal-mcp',
        args: ['--db', '/data/hal.db'],
        allowedTools: ['hal_health', 'hal_servers_list'],
      },
    })
      .languageModel('sonnet')
      .doGenerate({ prompt: hello });
    const [call] = await bins.calls();
    const argv = call?.argv ?? [];
    const configPath = argv[argv.indexOf('--mcp-config') + 1] ?? '';
    expect(path.dirname(configPath)).toBe(call?.cwd);
    expect(argv).toContain('--strict-mcp-config');
    expect(argv[argv.indexOf('--allowedTools') + 1]).toBe('mcp__hal__hal_health,mcp__hal__hal_servers_list');
  });
});

describe('createCliProvider — an MCP server per call', () => {
  it('hands the call its conversation, puts the server it gets into the config, and releases it after the run', async () => {
    const bin = await bins.install('claude', { runStdout: [claudeResult({})] });
    const seen: unknown[] = [];
    let released = 0;
    const conversation = { roomId: 'room-1', turnId: 'turn-1', connectionId: 'conn-1' };
    await createCliProvider({
      tool: 'claude',
      binPath: bin,
      mcp: ({ conversation: given }) => {
        seen.push(given);
        return {
          command: 'hal-mcp',
          env: { HAL_MCP_ROOM: given?.roomId ?? '' },
          release: () => {
            released += 1;
          },
        };
      },
    })
      .languageModel('sonnet')
      .doGenerate({ prompt: hello, conversation });
    expect(seen).toEqual([conversation]);
    expect(released).toBe(1);
    const [call] = await bins.calls();
    const argv = call?.argv ?? [];
    expect(argv).toContain('--mcp-config');
    // The fake recorded the config's path; the file (in the run's folder) is gone with the folder.
    expect(argv[argv.indexOf('--allowedTools') + 1]).toBe('mcp__hal');
  });

  it('releases the server also when the run fails', async () => {
    const bin = await bins.install('claude', { runStdout: [], runExit: 1, runStderr: 'boom' });
    let released = 0;
    const model = createCliProvider({
      tool: 'claude',
      binPath: bin,
      mcp: () => ({
        command: 'hal-mcp',
        release: () => {
          released += 1;
        },
      }),
    }).languageModel('sonnet');
    await rejection(model.doGenerate({ prompt: hello }));
    expect(released).toBe(1);
  });
});

describe('createCliProvider — not found, timeout, abort', () => {
  it('a CLI that is nowhere → cli_not_found', async () => {
    const model = createCliProvider({
      tool: 'codex',
      env: { PATH: path.join(bins.dir, 'none') },
      homedir: path.join(bins.dir, 'home'),
    }).languageModel('gpt-5.5');
    const parts = await readAll((await model.doStream({ prompt: hello })).stream);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'cli_not_found' } });
    expect((await rejection(model.doGenerate({ prompt: hello }))).code).toBe('cli_not_found');
  });

  it('discovers the CLI through HAL_CLI_DIRS when no path is configured', async () => {
    await bins.install('claude', { runStdout: [claudeResult({ result: 'found me' })] }, 'extra');
    const model = createCliProvider({
      tool: 'claude',
      env: { PATH: '/usr/bin:/bin', HAL_CLI_DIRS: path.join(bins.dir, 'extra') },
      homedir: path.join(bins.dir, 'home'),
    }).languageModel('sonnet');
    expect((await model.doGenerate({ prompt: hello })).content).toEqual([{ type: 'text', text: 'found me' }]);
  });

  it('a hung CLI is killed on timeout (whole process group) → provider_timeout', async () => {
    const model = await hangingModel('codex', 3000);
    const parts = await readAll((await model.doStream({ prompt: hello })).stream);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'provider_timeout' } });
    const pids = await bins.pids();
    await expect.poll(() => isAlive(pids.parent), { timeout: 5000 }).toBe(false);
    await expect.poll(() => isAlive(pids.child), { timeout: 5000 }).toBe(false);
  });

  it('abortSignal kills the process', async () => {
    const controller = new AbortController();
    const model = await hangingModel('claude', 60_000);
    const pending = rejection(model.doGenerate({ prompt: hello, abortSignal: controller.signal }));
    await expect.poll(() => bins.pids().catch(() => undefined), { timeout: 10_000 }).toBeDefined();
    controller.abort();
    expect((await pending).code).toBe('interrupted');
    const pids = await bins.pids();
    await expect.poll(() => isAlive(pids.parent), { timeout: 5000 }).toBe(false);
    await expect.poll(() => isAlive(pids.child), { timeout: 5000 }).toBe(false);
  });
});

describe('createCliProvider — stream cancel', () => {
  it('cancelling the stream kills the process', async () => {
    const model = await hangingModel('claude', 60_000);
    const { stream } = await model.doStream({ prompt: hello });
    const reader = stream.getReader();
    expect((await reader.read()).value).toEqual({ type: 'stream-start' });
    await expect.poll(() => bins.pids().catch(() => undefined), { timeout: 10_000 }).toBeDefined();
    await reader.cancel();
    const pids = await bins.pids();
    await expect.poll(() => isAlive(pids.parent), { timeout: 5000 }).toBe(false);
    await expect.poll(() => isAlive(pids.child), { timeout: 5000 }).toBe(false);
  });
});

describe('createCliProvider — codex (fake executable)', () => {
  const events = [
    { type: 'thread.started', thread_id: 'thread-1' },
    { type: 'turn.started' },
    { type: 'item.completed', item: { id: 'item_0', type: 'error', message: 'Model metadata not found' } },
    { type: 'error', message: 'Reconnecting... 2/5' },
    { type: 'item.completed', item: { id: 'item_1', type: 'reasoning', text: 'thinking' } },
    { type: 'item.completed', item: { id: 'item_2', type: 'agent_message', text: 'First.' } },
    { type: 'item.completed', item: { id: 'item_3', type: 'agent_message', text: 'Second.' } },
    { type: 'turn.completed', usage: { input_tokens: 20, cached_input_tokens: 4, output_tokens: 7 } },
  ].map((event) => JSON.stringify(event));

  it('runs codex exec --json and reads agent messages and usage', async () => {
    const bin = await bins.install('codex', {
      runStdout: events,
      runStderr: 'WARNING: proceeding, even though…\n',
    });
    const result = await createCliProvider({ tool: 'codex', binPath: bin })
      .languageModel('gpt-5.5')
      .doGenerate({ prompt: hello });
    expect(result.content).toEqual([{ type: 'text', text: 'First.\n\nSecond.' }]);
    expect(result.usage).toEqual({
      inputTokens: 20,
      outputTokens: 7,
      cachedInputTokens: 4,
      reasoningTokens: undefined,
    });
    expect(result.response).toEqual({ id: 'thread-1', modelId: 'gpt-5.5' });
    const [call] = await bins.calls();
    expect(call?.argv).toEqual([
      'exec',
      '--json',
      '-s',
      'read-only',
      '--skip-git-repo-check',
      '--ephemeral',
      '-C',
      call?.cwd,
      '-m',
      'gpt-5.5',
      '--',
      'You are HAL.\n\nSay hello',
    ]);
  });

  it('turn.failed → an error part with the mapped code', async () => {
    const bin = await bins.install('codex', {
      runStdout: [
        JSON.stringify({ type: 'thread.started', thread_id: 't' }),
        JSON.stringify({ type: 'turn.failed', error: { message: 'unexpected status 401 Unauthorized' } }),
      ],
      runExit: 1,
    });
    const parts = await readAll(
      (
        await createCliProvider({ tool: 'codex', binPath: bin })
          .languageModel('gpt-5.5')
          .doStream({ prompt: hello })
      ).stream,
    );
    expect(parts.some((part) => part.type === 'text-delta')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'provider_auth' } });
  });

  it('attaches an MCP server with -c overrides', async () => {
    const bin = await bins.install('codex', { runStdout: events });
    await createCliProvider({
      tool: 'codex',
      binPath: bin,
      mcp: { command: 'hal-mcp', args: ['--db', '/data/hal.db'] },
    })
      .languageModel('gpt-5.5')
      .doGenerate({ prompt: hello });
    const [call] = await bins.calls();
    expect(call?.argv).toContain('mcp_servers.hal.command="hal-mcp"');
    expect(call?.argv).toContain('mcp_servers.hal.args=["--db","/data/hal.db"]');
  });

  it('lists the configured default first; `models` replaces the list', async () => {
    const models = await createCliProvider({
      tool: 'codex',
      model: 'my-custom-model',
      env: { PATH: '/usr/bin' },
      homedir: bins.dir,
    }).listModels();
    // No models_cache.json in this home: the documented fallback.
    expect(models).toEqual([{ id: 'my-custom-model' }, { id: 'gpt-5.5' }]);
    const claude = await createCliProvider({ tool: 'claude', models: ['sonnet'] }).listModels();
    expect(claude).toEqual([{ id: 'sonnet' }]);
  });
});
