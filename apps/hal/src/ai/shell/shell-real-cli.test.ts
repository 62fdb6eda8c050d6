import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditInput } from '../../domain/audit/types.js';
import { createShellService, type ShellService } from './shell-sessions.js';

// The real CLIs are dev dependencies of @hal-ai/providers.
const providersModules = fileURLToPath(
  new URL('../../../../../packages/providers/node_modules/', import.meta.url),
);
const realBins = {
  claude: path.join(providersModules, '@anthropic-ai/claude-code/bin/claude.exe'),
  codex: path.join(providersModules, '@openai/codex/bin/codex.js'),
} as const;

let shells: ShellService | undefined;
let home: string | undefined;

afterEach(async () => {
  await shells?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

async function runVersion(tool: 'claude' | 'codex'): Promise<{ text: string; exitCode: number | null }> {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-shell-real-'));
  const audits: AuditInput[] = [];
  shells = createShellService(
    {
      audit: { append: async (input) => audits.push(input) },
      logger: { info: () => {}, warn: () => {} },
      clock: { now: () => Date.now() },
    },
    {
      // Found through CLAUDE_BIN / CODEX_BIN, as an operator would point HAL at them.
      env: { CLAUDE_BIN: realBins.claude, CODEX_BIN: realBins.codex, PATH: '/usr/bin:/bin' },
      homedir: home,
    },
  );
  const operator = { id: 'op_real', username: 'real' };
  const shell = await shells.start(operator, { tool, command: 'version' });
  const chunks: Buffer[] = [];
  let exitCode: number | null | undefined;
  await new Promise<void>((resolve) =>
    shells?.subscribe(
      operator,
      shell.id,
      undefined,
      (event) => {
        if (event.type === 'output') chunks.push(event.data);
        if (event.type === 'exit') exitCode = event.exitCode;
      },
      resolve,
    ),
  );
  expect(audits.map((entry) => entry.action)).toEqual(['ai.shell.start', 'ai.shell.end']);
  return { text: Buffer.concat(chunks).toString('utf8'), exitCode: exitCode ?? null };
}

describe.skipIf(!fs.existsSync(realBins.claude))('the real Claude Code CLI in the login terminal', () => {
  it('`version` runs `claude --version` in a PTY and exits 0', async () => {
    const { text, exitCode } = await runVersion('claude');
    expect(text).toMatch(/\b2\.1\.197 \(Claude Code\)/);
    expect(exitCode).toBe(0);
  }, 60_000);
});

describe.skipIf(!fs.existsSync(realBins.codex))('the real Codex CLI in the login terminal', () => {
  it('`version` runs `codex --version` in a PTY and exits 0', async () => {
    const { text, exitCode } = await runVersion('codex');
    expect(text).toMatch(/codex-cli 0\.171\.0/);
    expect(exitCode).toBe(0);
  }, 60_000);
});
