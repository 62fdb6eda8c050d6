// Test support (not exported): fake `claude` / `codex` executables (small Node scripts) for the login terminal.
// They behave like the real CLIs where HAL looks — `--version`, `claude auth status` (JSON, exit 1 logged out),
// `codex login status` (stderr `Not logged in`, exit 1) — and their login prints a long authorization URL, asks
// for a code, and logs in (a marker file in HOME) only on the right one. Each run records its argv, working
// folder and environment names in `calls.jsonl` beside the script.
import fs from 'node:fs';
import path from 'node:path';

/** What one run of the fake saw. */
export interface FakeCliCall {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

/** An installed fake CLI. */
export interface FakeLoginCli {
  /** The executable (point `CLAUDE_BIN` / `CODEX_BIN` at it). */
  file: string;
  /** The authorization URL its login prints (longer than any terminal row). */
  url: string;
  /** The code its login accepts. */
  code: string;
  /** Every run so far. */
  calls(): FakeCliCall[];
  /** Whether a login succeeded (in the given HOME). */
  loggedIn(home: string): boolean;
  /** The pid of the helper a `interactive` run leaves in its process group, once it started. */
  helperPid(): number | undefined;
}

const SCRIPT = String.raw`#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const here = __dirname;
const tool = path.basename(__filename);
const argv = process.argv.slice(2);
const config = JSON.parse(fs.readFileSync(path.join(here, tool + '.json'), 'utf8'));
fs.appendFileSync(path.join(here, 'calls.jsonl'), JSON.stringify({ argv, cwd: process.cwd(), env: process.env }) + '\n');
const marker = path.join(process.env.HOME || '/nonexistent', '.fake-' + tool + '-login');
const loggedIn = fs.existsSync(marker);
const is = (...words) => words.length === argv.length && words.every((word, index) => argv[index] === word);

if (is('--version')) {
  console.log(tool === 'claude' ? '2.1.197 (Claude Code)' : 'codex-cli 0.171.0');
  process.exit(0);
}
if (tool === 'claude' && is('auth', 'status')) {
  console.log(JSON.stringify({ loggedIn, authMethod: loggedIn ? 'claude.ai' : 'none' }, null, 2));
  process.exit(loggedIn ? 0 : 1);
}
if (tool === 'codex' && is('login', 'status')) {
  if (loggedIn) { console.error('Logged in using ChatGPT'); process.exit(0); }
  console.error('Not logged in'); process.exit(1);
}
if ((tool === 'claude' && (is('auth', 'login') || is('auth', 'login', '--console'))) ||
    (tool === 'codex' && (is('login') || is('login', '--device-auth')))) {
  process.stdout.write('Opening the browser is not possible here. Visit this URL to log in:\r\n\r\n');
  process.stdout.write(config.url + '\r\n\r\n');
  process.stdout.write('Paste code here if prompted > ');
  let line = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    line += chunk;
    if (!line.includes('\n') && !line.includes('\r')) return;
    if (line.trim() === config.code) {
      fs.writeFileSync(marker, 'ok');
      process.stdout.write('\r\nLogin successful.\r\n');
      process.exit(0);
    }
    process.stdout.write('\r\nInvalid code.\r\n');
    process.exit(1);
  });
  return;
}
if (argv.length === 0) {
  // Stands for the interactive TUI: leaves a helper in its process group, then waits for keys.
  const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  fs.writeFileSync(path.join(here, 'helper.pid'), String(helper.pid));
  process.stdout.write('Do you trust the files in this folder? (y/n) ');
  process.stdin.on('data', () => {});
  return;
}
console.error('unknown command: ' + argv.join(' '));
process.exit(2);
`;

/**
 * Writes a fake `tool` into `dir`. `url` defaults to a 300-character authorization URL, so it wraps over
 * several rows of a 100-column terminal.
 */
export function installFakeLoginCli(
  dir: string,
  tool: 'claude' | 'codex',
  options: { code: string; url?: string },
): FakeLoginCli {
  const file = path.join(dir, tool);
  const url =
    options.url ??
    `https://claude.ai/oauth/authorize?code=true&client_id=9d1c250a-e61b-44d9-88ed-5944d1962f5e&response_type=code&redirect_uri=https%3A%2F%2Fconsole.anthropic.com%2Foauth%2Fcode%2Fcallback&scope=org%3Acreate_api_key+user%3Aprofile+user%3Ainference&state=${'s'.repeat(80)}`;
  fs.writeFileSync(path.join(dir, `${tool}.json`), JSON.stringify({ url, code: options.code }));
  // Written beside the fake, so a stale pid from a previous test is never read.
  fs.rmSync(path.join(dir, 'helper.pid'), { force: true });
  fs.writeFileSync(file, SCRIPT, { mode: 0o755 });
  const callsFile = path.join(dir, 'calls.jsonl');
  return {
    file,
    url,
    code: options.code,
    calls: () =>
      fs.existsSync(callsFile)
        ? fs
            .readFileSync(callsFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as FakeCliCall)
        : [],
    loggedIn: (home) => fs.existsSync(path.join(home, `.fake-${tool}-login`)),
    helperPid: () => {
      const pidFile = path.join(dir, 'helper.pid');
      return fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : undefined;
    },
  };
}
