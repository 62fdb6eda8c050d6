#!/usr/bin/env node
// Packages the built HAL into a folder that runs on its own: `dist/` with every asset it serves, and node_modules
// with production dependencies only (the workspace libraries' built output, better-sqlite3 and node-pty compiled
// for this machine). Run it on the target machine, or one with the same OS, CPU and Node major version.
//
//   pnpm package:hal <target-folder> [--skip-build]
//
// then `node <target-folder>/dist/cli.js serve` (deploy/hal.service runs exactly that).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const appDir = path.join(root, 'apps/hal');
// This script is no turbo task: the variables below (pnpm's own) never feed a cached build.
const environment = process.env;

/**
 * What the built HAL reads at run time, relative to the package folder; a package without one is refused. The
 * page assets are every file of their source folder (the build copies the whole folder: console.js and the favicon
 * are served as well as console.css), so an asset added there is checked without touching this list.
 */
export const SERVED_FILES = [
  'dist/cli.js',
  'dist/mcp-bin.js',
  'dist/hal-skill.md',
  ...fs
    .readdirSync(path.join(appDir, 'src/domain/pages/assets'))
    .sort()
    .map((file) => `dist/assets/${file}`),
  'dist/assets/panel.js',
  'dist/assets/panel.css',
  'VERSION-HISTORY.md',
];

function fail(message) {
  process.stderr.write(`package-hal: ${message}\n`);
  process.exit(1);
}

/** pnpm as this script was started by (`pnpm package:hal`), else the pinned one through npx (from its cache, when there). */
function pnpmCommand() {
  const execPath = environment.npm_execpath;
  if (execPath && /pnpm/.test(path.basename(execPath))) return [process.execPath, [execPath]];
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return ['npx', ['--prefer-offline', '-y', manifest.packageManager]];
}

function run(command, args, options = {}) {
  execFileSync(command, args, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      TURBO_TELEMETRY_DISABLED: '1',
      npm_config_nodedir: environment.npm_config_nodedir ?? '/usr',
    },
    ...options,
  });
}

const args = process.argv.slice(2);
const skipBuild = args.includes('--skip-build');
const positionals = args.filter((arg) => !arg.startsWith('--'));
if (positionals.length !== 1 || args.some((arg) => arg.startsWith('--') && arg !== '--skip-build')) {
  fail('usage: pnpm package:hal <target-folder> [--skip-build]');
}
const target = path.resolve(positionals[0]);
if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
  fail(`${target} is not empty: package into a new folder (one per release), then switch to it`);
}

const [pnpm, pnpmArgs] = pnpmCommand();
if (!skipBuild) run(pnpm, [...pnpmArgs, 'exec', 'turbo', 'run', 'build', '--filter=@hal-ai/hal...']);
for (const file of SERVED_FILES) {
  if (!fs.existsSync(path.join(appDir, file))) fail(`apps/hal/${file} is missing: build first (pnpm build)`);
}

// `--legacy`: pnpm 10 deploys injected workspaces only by default; HAL's workspace links its libraries instead, and
// the legacy deploy copies each library's published files (`files`: its dist) into the target.
// `--prefer-offline`: the legacy deploy resolves again; what pnpm's store already holds is used as it is, and only
// what is missing is asked of the registry. Revalidating everything costs time, and, offline or behind the tests'
// loopback guard, two one-minute retries per package.
const deploy = ['--filter', '@hal-ai/hal', 'deploy', '--legacy', '--prod', '--prefer-offline', target];
run(pnpm, [...pnpmArgs, ...deploy]);

/** Symbolic links under `folder` whose target lies outside it. */
function linksLeaving(folder) {
  const leaving = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let resolved = '';
        try {
          resolved = fs.realpathSync(full);
        } catch {
          // a dangling link leaves the package too
        }
        if (!resolved.startsWith(`${folder}${path.sep}`)) leaving.push(full);
      } else if (entry.isDirectory()) walk(full);
    }
  };
  walk(folder);
  return leaving;
}

// pnpm hoists a link to the deployed workspace package itself (`.pnpm/node_modules/@hal-ai/hal`) that points back
// into this checkout; nothing needs it (the package is the folder), and it would make the package lean on the
// checkout. Any other link that leaves the folder is a packaging fault.
const hoisted = path.join(target, 'node_modules/.pnpm/node_modules');
for (const link of linksLeaving(target)) {
  if (path.dirname(path.dirname(link)) === hoisted || path.dirname(link) === hoisted) fs.rmSync(link);
  else fail(`${link} points outside the package`);
}
for (const file of SERVED_FILES) {
  if (!fs.existsSync(path.join(target, file))) fail(`the package lacks ${file}`);
}
// The native modules must load here, with this Node: a package that cannot open its database is no package.
run(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    "import Database from 'better-sqlite3'; new Database(':memory:').close(); await import('node-pty');",
  ],
  { cwd: target },
);
process.stdout.write(
  `HAL packaged in ${target}\nstart it with: node ${path.join(target, 'dist/cli.js')} serve\n`,
);
