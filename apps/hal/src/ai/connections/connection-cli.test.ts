import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestSession } from '../../../test/foundation.test-support.js';
import { halMcpAttachment } from '../mcp/mcp-attachment.js';
import {
  type ConnectionsTestApp,
  createConnectionsTestApp,
  installFakeClaude,
  installFakeCodex,
} from './connection-fakes.test-support.js';

const api = (path = '') => `/ops/api/ai${path}`;

let t: ConnectionsTestApp;
let session: TestSession;
let root: string;
let binDir: string;
let home: string;

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-conn-cli-'));
  binDir = path.join(root, 'bin');
  home = path.join(root, 'home');
  fs.mkdirSync(binDir);
  fs.mkdirSync(home);
  // Only HAL_CLI_DIRS and an empty home are searched beyond the system folders (where neither CLI is installed here).
  const env = { HAL_CLI_DIRS: binDir, PATH: path.dirname(process.execPath), HOME: home };
  t = await createConnectionsTestApp({
    cli: {
      env,
      homedir: home,
      statusTimeoutMs: 20_000,
      // The connection's tool preset decides which HAL tools the CLI may call through HAL's MCP server.
      mcp: (selection) =>
        halMcpAttachment({ config: { dataDir: root } }, selection, {
          binPath: path.join(root, 'mcp-bin.js'),
        }),
    },
  });
  session = await t.login();
});

afterEach(async () => {
  await t.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const claudeBody = { provider: 'local-cli', name: 'claude', auth: 'cli', cli: { tool: 'claude' } };

describe('local CLI connections', () => {
  it('an absent CLI fails the check with cli_not_found', async () => {
    const created = await t.call('POST', api('/connections'), session, claudeBody);
    expect(created.status).toBe(201);
    expect(created.body.connection).toMatchObject({
      status: 'error',
      lastError: { code: 'cli_not_found' },
      secret: { cli: true, tool: 'claude' },
    });
    const clis = await t.call('GET', api('/cli'), session);
    expect(clis.status).toBe(200);
    expect(clis.body.clis).toEqual([
      expect.objectContaining({ tool: 'claude', found: false }),
      expect.objectContaining({ tool: 'codex', found: false }),
    ]);
  });

  it("codex: the models come from the CLI's own models_cache.json and the default from config.toml", async () => {
    const file = installFakeCodex(binDir, { loggedIn: true });
    fs.mkdirSync(path.join(home, '.codex'));
    fs.writeFileSync(path.join(home, '.codex', 'config.toml'), 'model = "gpt-acct-b"\n');
    fs.writeFileSync(
      path.join(home, '.codex', 'models_cache.json'),
      JSON.stringify({
        fetched_at: '2026-11-30T08:00:00Z',
        client_version: '0.171.0',
        models: [
          { slug: 'gpt-acct-b', visibility: 'list', priority: 2 },
          { slug: 'codex-internal', visibility: 'hide', priority: 0 },
          { slug: 'gpt-acct-a', visibility: 'list', priority: 1 },
        ],
      }),
    );
    const created = await t.call('POST', api('/connections'), session, {
      provider: 'local-cli',
      name: 'codex',
      auth: 'cli',
      cli: { tool: 'codex' },
    });
    expect(created.body.connection).toMatchObject({
      status: 'active',
      model: 'gpt-acct-b',
      models: ['gpt-acct-b', 'gpt-acct-a'],
      secret: { cli: true, tool: 'codex', path: file, version: '0.171.0', loggedIn: true },
    });
    const refused = await t.call('PATCH', api(`/connections/${created.body.connection.id}`), session, {
      model: 'gpt-5.5',
    });
    expect(refused.body.error.code).toBe('model_unavailable');
  });

  it('a logged-out CLI needs a login (reauth_required with the hint); logged in it is active', async () => {
    const file = installFakeClaude(binDir, { loggedIn: false, version: '2.1.197' });
    const created = await t.call('POST', api('/connections'), session, claudeBody);
    expect(created.body.connection.status).toBe('reauth_required');
    expect(created.body.connection.lastError.code).toBe('cli_not_logged_in');
    expect(created.body.connection.lastError.message).toMatch(/claude auth login/);
    expect(created.body.connection.secret).toMatchObject({ cli: true, path: file, loggedIn: false });

    installFakeClaude(binDir, { loggedIn: true, version: '2.1.197' });
    const checked = await t.call('POST', api(`/connections/${created.body.connection.id}/test`), session);
    expect(checked.status).toBe(200);
    expect(checked.body.connection).toMatchObject({ status: 'active', lastError: null });
    // Check stores what it found about the CLI on the connection: path, version, login state and when.
    expect(checked.body.connection.secret).toEqual({
      cli: true,
      tool: 'claude',
      path: file,
      version: '2.1.197',
      loggedIn: true,
      checkedAt: checked.body.connection.lastCheckedAt,
    });
    expect((await t.call('GET', api('/connections'), session)).body.connections[0].secret).toMatchObject({
      path: file,
      loggedIn: true,
    });
    expect(checked.body.connection.models).toContain('sonnet');
    expect(checked.body.models.map((model: { id: string }) => model.id)).toContain('sonnet');

    const clis = await t.call('GET', api('/cli'), session);
    expect(clis.body.clis[0]).toMatchObject({
      tool: 'claude',
      found: true,
      path: file,
      source: 'hal_cli_dirs',
      version: '2.1.197',
      loggedIn: true,
    });

    // Model choice follows the CLI's list; an unknown one is refused.
    const refused = await t.call('PATCH', api(`/connections/${created.body.connection.id}`), session, {
      model: 'not-a-claude-model',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('model_unavailable');
    const chosen = await t.call('PATCH', api(`/connections/${created.body.connection.id}`), session, {
      model: 'opus',
    });
    expect(chosen.body.connection.model).toBe('opus');
    const model = await t.connections.languageModel(created.body.connection.id);
    expect(model.provider).toBe('local-cli');
    expect(model.modelId).toBe('opus');
    const result = await model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect(result.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'hello from the fake cli' }),
    ]);
    const [argv] = fs
      .readFileSync(path.join(binDir, 'claude-calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);
    // HAL's MCP server rides along on every CLI run, with the tools the connection's preset allows.
    expect(argv).toContain('--mcp-config');
    expect(argv?.[argv.indexOf('--model') + 1]).toBe('opus');
    const allowedAll = argv?.[argv.indexOf('--allowedTools') + 1] ?? '';
    expect(allowedAll).toContain('mcp__hal__hal_servers_list');
    expect(allowedAll).toContain('mcp__hal__hal_server_isolate');

    const id = created.body.connection.id;
    const runArgv = async () => {
      await (await t.connections.languageModel(id)).doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      });
      const calls = fs.readFileSync(path.join(binDir, 'claude-calls.jsonl'), 'utf8').trim().split('\n');
      return JSON.parse(calls.at(-1) ?? '[]') as string[];
    };
    await t.call('PATCH', api(`/connections/${id}`), session, { tools: { preset: 'read_only' } });
    const readOnly = await runArgv();
    const allowedRead = readOnly[readOnly.indexOf('--allowedTools') + 1] ?? '';
    expect(allowedRead).toContain('mcp__hal__hal_servers_list');
    expect(allowedRead).not.toContain('hal_server_isolate');
    await t.call('PATCH', api(`/connections/${id}`), session, { tools: { preset: 'none' } });
    expect(await runArgv()).not.toContain('--mcp-config');
  });
});
