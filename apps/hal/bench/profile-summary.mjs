// Summarises the newest HAL CPU profile written by `BENCH_CPU_PROF=1 pnpm bench`: self time by function and by
// package, and total (inclusive) time of the hottest call paths' functions. Usage: node bench/profile-summary.mjs [file]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'bench-results', 'profiles');
const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const [, value] = args.splice(index, 2);
  return value;
};
const lastMs = Number(option('--last-ms') ?? Number.POSITIVE_INFINITY);
const busyOnly = args.includes('--busy') && args.splice(args.indexOf('--busy'), 1).length > 0;
const file =
  args[0] ??
  readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Sample time per node: each sample lasts until the next one.
const selfUs = new Map();
const from = profile.endTime - lastMs * 1000;
let at = profile.startTime;
for (let index = 0; index < profile.samples.length; index += 1) {
  at += profile.timeDeltas[index] ?? 0;
  if (at < from) continue;
  const id = profile.samples[index];
  if (busyOnly && nodes.get(id).callFrame.functionName === '(idle)') continue;
  const delta = profile.timeDeltas[index + 1] ?? 0;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
}
const totalUs = [...selfUs.values()].reduce((sum, value) => sum + value, 0);

const where = (frame) => {
  const url = frame.url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, '');
  return `${frame.functionName || '(anonymous)'} ${url.split('/').slice(-3).join('/')}:${frame.lineNumber + 1}`;
};
const packageOf = (frame) => {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const match = /node_modules\/(@[^/]+\/[^/]+|[^/.][^/]*)\//.exec(
    url.replace(/.*node_modules\/\.pnpm\/[^/]+\//, ''),
  );
  if (match) return match[1];
  const workspace = /\/(packages|apps)\/([^/]+)\//.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : url;
};

const bySelf = new Map();
const byPackage = new Map();
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const node = nodes.get(id);
  const key = where(node.callFrame);
  bySelf.set(key, (bySelf.get(key) ?? 0) + us);
  const pkg = packageOf(node.callFrame);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  // Inclusive time: once per distinct function on the stack.
  const seen = new Set();
  for (let current = id; current !== undefined; current = parent.get(current)) {
    const frame = where(nodes.get(current).callFrame);
    if (seen.has(frame)) continue;
    seen.add(frame);
    inclusive.set(frame, (inclusive.get(frame) ?? 0) + us);
  }
}
const top = (map, count) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, us]) =>
        `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${key}`,
    )
    .join('\n');
console.log(
  `${file}\ntotal ${(totalUs / 1000).toFixed(0)} ms sampled\n\nself time by package:\n${top(byPackage, 15)}`,
);
console.log(`\nself time by function:\n${top(bySelf, 25)}`);
console.log(`\ninclusive time by function:\n${top(inclusive, 400)}`);
