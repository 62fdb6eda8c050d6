import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `apps/hal`. */
export const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(appDir, '../..');
/** The built `hal` command. */
export const cliPath = path.join(appDir, 'dist/cli.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (!entry.name.includes('.test.')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function tsup(packageDir: string): void {
  execFileSync(path.join(repoRoot, 'node_modules/.bin/tsup'), [], { cwd: packageDir, stdio: 'pipe' });
}

/** Workspace packages a built file imports at run time (`from "@hal-ai/x"`), by directory. */
function workspaceImports(distDir: string): string[] {
  const byName = new Map<string, string>();
  for (const group of ['packages', 'apps']) {
    for (const name of fs.readdirSync(path.join(repoRoot, group))) {
      const manifest = path.join(repoRoot, group, name, 'package.json');
      if (fs.existsSync(manifest))
        byName.set(JSON.parse(fs.readFileSync(manifest, 'utf8')).name, path.dirname(manifest));
    }
  }
  const found = new Set<string>();
  for (const file of fs.readdirSync(distDir).filter((name) => name.endsWith('.js'))) {
    for (const match of fs
      .readFileSync(path.join(distDir, file), 'utf8')
      .matchAll(/from\s*["'](@hal-ai\/[a-z-]+)/g)) {
      const dir = match[1] ? byName.get(match[1]) : undefined;
      if (dir) found.add(dir);
    }
  }
  return [...found];
}

/**
 * Builds `dist/` when it is missing or older than `src/` (CI builds before testing, so this is
 * for direct `vitest` runs), then any workspace library it imports that has no `dist/` yet.
 */
export function ensureBuilt(): void {
  const fresh =
    fs.existsSync(cliPath) && fs.statSync(cliPath).mtimeMs >= newestSource(path.join(appDir, 'src'));
  if (!fresh) tsup(appDir);
  const pending = workspaceImports(path.join(appDir, 'dist'));
  const seen = new Set<string>();
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    if (seen.has(dir)) continue;
    seen.add(dir);
    if (!fs.existsSync(path.join(dir, 'dist/index.js'))) tsup(dir);
    pending.push(...workspaceImports(path.join(dir, 'dist')));
  }
}

/** A running `hal serve`: its process, what it printed so far, and the URL it listens on. */
export interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  url: string;
}

/** Runs the built `hal serve` (with `env` added) and waits for its "listening" line. */
export function serve(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [cliPath, 'serve'], {
    env: {
      PATH: process.env.PATH,
      HOME: dataDir,
      HAL_DATA_DIR: dataDir,
      HAL_PORT: '0',
      HAL_HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`hal serve did not start:\n${stdout}\n${stderr}`)),
      60_000,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hal serve exited with ${code}:\n${stdout}\n${stderr}`));
    });
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const match = /^HAL listening on (http:\/\/\S+)$/m.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, stdout: () => stdout, stderr: () => stderr, url: match[1] });
      }
    });
  });
}

/** Stops a `hal serve` with SIGTERM (at once if it already ended) and resolves with its exit code. */
export function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}
