import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeAnthropic } from './fake-anthropic.js';
import type { FakeServer } from './fake-server.js';

const require = createRequire(import.meta.url);
const claudeBin = join(
  dirname(require.resolve('@anthropic-ai/claude-code/package.json')),
  'bin',
  'claude.exe',
);

// The real Claude Code CLI (a dev dependency) is the strictest client of the Anthropic fake: HEAD /, ?beta=true,
// system-role items and many extra fields. It runs fully offline against the fake.
describe.skipIf(!existsSync(claudeBin))('createFakeAnthropic with the real Claude Code CLI', () => {
  let fake: FakeServer;
  let home: string;
  beforeAll(async () => {
    fake = await createFakeAnthropic({ respond: () => ({ text: 'Hello from the fake to Claude Code.' }) });
    home = await mkdtemp(join(tmpdir(), 'hal-claude-home-'));
  });
  afterAll(async () => {
    await fake.close();
    await rm(home, { recursive: true, force: true });
  });

  it('answers a claude -p run', async () => {
    const child = spawn(claudeBin, ['-p', 'say hi', '--output-format', 'json'], {
      cwd: home,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: `test-${randomBytes(12).toString('hex')}`,
        CLAUDE_CODE_MAX_RETRIES: '0',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    });
    let stdout = '';
    child.stdout.on('data', (data) => {
      stdout += data;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { is_error: boolean; result: string };
    expect({ code, isError: result.is_error, text: result.result }).toEqual({
      code: 0,
      isError: false,
      text: 'Hello from the fake to Claude Code.',
    });
    expect(fake.requests.some((request) => request.method === 'POST' && request.query.beta === 'true')).toBe(
      true,
    );
  }, 90_000);
});
