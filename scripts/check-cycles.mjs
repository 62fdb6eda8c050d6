#!/usr/bin/env node
// Fails on any import cycle inside apps/* and packages/* (SPEC §0: "No import cycles"), type-only
// imports and re-exports included: a type-only cycle still ties two modules into one unit a reader
// cannot understand alone. Cycles between packages are already impossible (check-layers.mjs keeps
// the package graph acyclic), so this follows the relative specifiers inside each package.
//
// Specifiers are read by TypeScript's own pre-processor (`ts.preProcessFile`), which lists every
// `import`, `import type`, `export … from` and `import()` of a file without type-checking it.
// Before checking the repository it checks itself on a small made-up tree, so a change that stops
// it from seeing cycles fails `pnpm check` too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'test-output', 'bench-results', '.turbo', 'data']);

/** Every source file under `dir`, skipping build output and dependencies. */
function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) walk(full, out);
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** The file a relative specifier names: `./x.js` is `./x.ts` in sources, `./dir` is `./dir/index.ts`. */
function resolveRelative(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs|jsx)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.js`,
    `${stem}.mjs`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
    path.join(base, 'index.js'),
  ];
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

/** The import graph of `files`: file → the files its relative specifiers name. */
function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = new Set();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveRelative(file, fileName);
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cyclicComponents(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  function visit(node) {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** One concrete cycle inside a component, as a path that starts and ends at the same file. */
function oneCycle(graph, component) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node) ?? []) {
      if (next === start) {
        const trail = [start];
        for (let at = node; at !== start; at = previous.get(at)) trail.splice(1, 0, at);
        return [...trail, start];
      }
      if (members.has(next) && !previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** Every import cycle among `files`, each as a readable `a → b → a` line relative to `base`. */
export function findCycles(files, base) {
  const graph = importGraph(files);
  return cyclicComponents(graph).map((component) =>
    oneCycle(graph, component)
      .map((file) => path.relative(base, file))
      .join(' → '),
  );
}

/** Proves on a made-up tree that a type-only cycle, an index cycle and a re-export cycle are found. */
function selfCheck() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-cycles-'));
  const write = (name, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  };
  try {
    write('a.ts', "import type { B } from './b.js';\nexport interface A { b?: B }\n");
    write('b.ts', "import type { A } from './a.js';\nexport interface B { a?: A }\n");
    write('c.ts', "import { d } from './d';\nexport const c = d;\n");
    write('d/index.ts', "export * from '../e.js';\n");
    write('e.ts', "export const d = 1;\nexport const later = () => import('./c.js');\n");
    write('free.ts', "import { c } from './c.js';\nexport const free = c;\n");
    const found = findCycles(walk(dir), dir).sort();
    const expected = ['a.ts → b.ts → a.ts', 'c.ts → d/index.ts → e.ts → c.ts'];
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      console.error(
        `cycles: self-check failed: expected ${JSON.stringify(expected)}, found ${JSON.stringify(found)}`,
      );
      process.exit(1);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

selfCheck();
const packages = ['apps', 'packages'].flatMap((group) =>
  fs
    .readdirSync(path.join(root, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(root, group, entry.name)),
);
const cycles = packages.flatMap((dir) => findCycles(walk(dir), root));
if (cycles.length > 0) {
  console.error(`Import cycles (SPEC §0 allows none, type-only imports included):\n  ${cycles.join('\n  ')}`);
  process.exit(1);
}
console.log(`cycles: none in ${packages.length} workspace packages (type-only imports included)`);
