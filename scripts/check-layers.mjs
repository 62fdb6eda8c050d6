#!/usr/bin/env node
// Enforces the dependency direction of SPEC §0: a package imports only from the layers below it.
// It reads every package.json dependency list and every import specifier in src/, so a stray
// import that bypasses package.json is caught too.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** What each workspace package may import from the workspace. */
const allowed = {
  '@hal-ai/spec': [],
  '@hal-ai/vault': ['@hal-ai/spec'],
  '@hal-ai/providers': ['@hal-ai/spec'],
  '@hal-ai/tools': ['@hal-ai/spec'],
  // The web fetcher sits beside tools: it serves the host's linked pages and its web_fetch tool.
  '@hal-ai/web': ['@hal-ai/spec'],
  '@hal-ai/rooms': ['@hal-ai/spec', '@hal-ai/tools'],
  '@hal-ai/mcp': ['@hal-ai/spec', '@hal-ai/tools'],
  // ui-panel speaks HTTP; it may import only types from spec (checked below).
  '@hal-ai/ui-panel': ['@hal-ai/spec'],
  '@hal-ai/hal': [
    '@hal-ai/spec',
    '@hal-ai/vault',
    '@hal-ai/providers',
    '@hal-ai/tools',
    '@hal-ai/web',
    '@hal-ai/rooms',
    '@hal-ai/mcp',
    '@hal-ai/ui-panel',
  ],
};

const dirs = ['packages', 'apps'].flatMap((d) =>
  fs.readdirSync(path.join(root, d)).map((name) => path.join(root, d, name)),
);
const problems = [];

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) out.push(full);
  }
  return out;
}

const importPattern =
  /(?:import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"](@hal-ai\/[a-z-]+)(?:\/[^'"]*)?['"]|import\(\s*['"](@hal-ai\/[a-z-]+)/g;

for (const dir of dirs) {
  const manifest = path.join(dir, 'package.json');
  if (!fs.existsSync(manifest)) continue;
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  const may = allowed[pkg.name];
  if (!may) {
    problems.push(`${pkg.name}: not in the layer table of scripts/check-layers.mjs`);
    continue;
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const dep of Object.keys(pkg[field] ?? {})) {
      if (dep.startsWith('@hal-ai/') && !may.includes(dep)) {
        problems.push(`${pkg.name}: ${field} names ${dep}, a layer it may not use`);
      }
    }
  }
  for (const file of walk(path.join(dir, 'src'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(importPattern)) {
      const typeOnly = Boolean(match[1]);
      const target = match[2] ?? match[3];
      if (target === pkg.name) continue;
      const rel = path.relative(root, file);
      if (!may.includes(target)) problems.push(`${rel}: imports ${target}, a layer it may not use`);
      else if (pkg.name === '@hal-ai/ui-panel' && !typeOnly) {
        problems.push(`${rel}: ui-panel may import only types from ${target} (use "import type")`);
      }
    }
  }
}

if (problems.length) {
  console.error(`Dependency direction (SPEC §0) broken:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`layers: ${dirs.length} workspace packages follow SPEC §0`);
