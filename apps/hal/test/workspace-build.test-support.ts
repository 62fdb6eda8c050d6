// Test support (not exported): builds the workspace packages a test runs as built code (`hal serve`, `hal-mcp`, the
// packaged `hal`). CI builds everything before testing; this is for direct `vitest` runs, where a local `dist/` may
// be missing or older than the sources (a stale `dist/` fails later with a missing export, far from its cause).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the folder with `packages/` and `apps/`). */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Files a package's build reads or writes beyond its own `src/` and the outputs its package.json names. */
export interface CopiedFiles {
  /** Files or folders (relative to the package) the build copies in: newer ones make the outputs stale. */
  inputs: string[];
  /** Files (relative to the package) the build writes besides the entries package.json names. */
  outputs: string[];
}

/**
 * What each package's `tsup.config.ts` copies: HAL's `dist/` carries the panel bundle and the skill document
 * (`copyServedAssets`), so a newer panel bundle means a stale HAL `dist/`.
 */
export const COPIED_FILES: Record<string, CopiedFiles> = {
  '@hal-ai/hal': {
    inputs: [
      '../../packages/ui-panel/dist/browser/panel.js',
      '../../packages/ui-panel/dist/browser/panel.css',
      '../../skill',
    ],
    outputs: ['dist/assets/panel.js', 'dist/assets/panel.css', 'dist/hal-skill.md'],
  },
};

/** One workspace package, as its package.json describes it. */
export interface WorkspacePackage {
  name: string;
  dir: string;
  /** The workspace packages it depends on at run time (`dependencies` only). */
  dependencies: string[];
  /** The built files its package.json names (`main`, `bin`, the exports' `import`/`default` targets). */
  outputs: string[];
}

/** Settings of {@link createWorkspaceBuilder}. */
export interface WorkspaceBuilderSettings {
  /** The repository root; default {@link REPOSITORY_ROOT}. */
  root?: string;
  /** Builds one package folder; default: the repository's tsup in that folder. */
  build?: (packageDir: string) => void;
  /** Default {@link COPIED_FILES}. */
  copied?: Record<string, CopiedFiles>;
}

/** Ensures built packages; see {@link createWorkspaceBuilder}. */
export interface WorkspaceBuilder {
  /** Why `name` needs a build (`dist/x.js is missing`, `src/y.ts is newer than dist/x.js`), or `null` when fresh. */
  staleReason(name: string): string | null;
  /**
   * Builds `name` and every workspace package it depends on that is stale, dependencies first; returns the
   * names it built. Throws when a build leaves an output missing or unwritten.
   */
  ensureBuilt(name: string): string[];
}

/** Built outputs a package.json names: `main`, every `bin`, and each export's `import`/`default` target. */
function namedOutputs(manifest: Record<string, unknown>): string[] {
  const found = new Set<string>();
  const add = (target: unknown) => {
    if (typeof target === 'string' && !target.endsWith('package.json')) found.add(path.normalize(target));
  };
  add(manifest.main);
  const bin = manifest.bin;
  if (typeof bin === 'string') add(bin);
  else if (bin && typeof bin === 'object') for (const target of Object.values(bin)) add(target);
  const visit = (entry: unknown) => {
    if (typeof entry === 'string') add(entry);
    else if (entry && typeof entry === 'object') {
      for (const [key, value] of Object.entries(entry)) {
        // The source condition points at `src/`, `types` at declarations: neither is what node runs.
        if (key !== '@hal-ai/source' && key !== 'types') visit(value);
      }
    }
  };
  visit(manifest.exports);
  return [...found];
}

/** The workspace packages under `packages/` and `apps/`, by name. */
export function readWorkspace(root: string): Map<string, WorkspacePackage> {
  const manifests: Array<{ dir: string; manifest: Record<string, unknown> }> = [];
  for (const group of ['packages', 'apps']) {
    const groupDir = path.join(root, group);
    if (!fs.existsSync(groupDir)) continue;
    for (const name of fs.readdirSync(groupDir)) {
      const file = path.join(groupDir, name, 'package.json');
      if (fs.existsSync(file)) {
        manifests.push({ dir: path.dirname(file), manifest: JSON.parse(fs.readFileSync(file, 'utf8')) });
      }
    }
  }
  const names = new Set(manifests.map(({ manifest }) => String(manifest.name)));
  return new Map(
    manifests.map(({ dir, manifest }) => [
      String(manifest.name),
      {
        name: String(manifest.name),
        dir,
        dependencies: Object.keys((manifest.dependencies as Record<string, string>) ?? {}).filter(
          (dependency) => names.has(dependency),
        ),
        outputs: namedOutputs(manifest),
      },
    ]),
  );
}

const TEST_FILE = /\.test(-support)?\.tsx?$/;

/** The newest file under `target` (a file or a folder, tests left out), or `null` when there is none. */
function newestFile(target: string): { file: string; mtimeMs: number } | null {
  if (!fs.existsSync(target)) return null;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return { file: target, mtimeMs: stat.mtimeMs };
  let newest: { file: string; mtimeMs: number } | null = null;
  for (const entry of fs.readdirSync(target, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || TEST_FILE.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const mtimeMs = fs.statSync(file).mtimeMs;
    if (newest === null || mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

function tsupBuild(root: string): (packageDir: string) => void {
  const tsup = path.join(root, 'node_modules/tsup/dist/cli-default.js');
  return (packageDir) => {
    try {
      execFileSync(process.execPath, [tsup], { cwd: packageDir, stdio: 'pipe', timeout: 300_000 });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
      throw new Error(`tsup in ${packageDir} failed:\n${stderr}`);
    }
  };
}

/**
 * A builder over the workspace at `settings.root`. A package is stale when an output its package.json names (or
 * a file its build copies in, {@link COPIED_FILES}) is missing, or older than the newest of its inputs: `src/`
 * without tests, `package.json`, `tsconfig.json`, `tsup.config.ts` (turbo's build inputs) and the copied files.
 */
export function createWorkspaceBuilder(settings: WorkspaceBuilderSettings = {}): WorkspaceBuilder {
  const root = settings.root ?? REPOSITORY_ROOT;
  const build = settings.build ?? tsupBuild(root);
  const copied = settings.copied ?? COPIED_FILES;
  const workspace = readWorkspace(root);
  const packageOf = (name: string): WorkspacePackage => {
    const found = workspace.get(name);
    if (!found) throw new Error(`${name} is not a workspace package`);
    return found;
  };

  const staleReason = (name: string): string | null => {
    const { dir, outputs } = packageOf(name);
    const extra = copied[name] ?? { inputs: [], outputs: [] };
    let oldest: { file: string; mtimeMs: number } | null = null;
    for (const output of [...outputs, ...extra.outputs]) {
      const file = path.join(dir, output);
      if (!fs.existsSync(file)) return `${output} is missing`;
      const mtimeMs = fs.statSync(file).mtimeMs;
      if (oldest === null || mtimeMs < oldest.mtimeMs) oldest = { file, mtimeMs };
    }
    if (oldest === null) return null;
    const inputs = ['src', 'package.json', 'tsconfig.json', 'tsup.config.ts', ...extra.inputs];
    for (const input of inputs) {
      const newest = newestFile(path.join(dir, input));
      if (newest && newest.mtimeMs > oldest.mtimeMs) {
        return `${path.relative(dir, newest.file)} is newer than ${path.relative(dir, oldest.file)}`;
      }
    }
    return null;
  };

  const unwrittenOutput = (name: string, since: number): string | null => {
    const { dir, outputs } = packageOf(name);
    for (const output of [...outputs, ...(copied[name]?.outputs ?? [])]) {
      const stat = fs.statSync(path.join(dir, output), { throwIfNoEntry: false });
      if (!stat) return `${output} is missing`;
      // Whole milliseconds: a file system may store coarser times than the clock reads.
      if (Math.ceil(stat.mtimeMs) < Math.floor(since) - 1000) return `${output} was not written`;
    }
    return null;
  };

  const ensureBuilt = (name: string): string[] => {
    const built: string[] = [];
    const visited = new Set<string>();
    const visit = (current: string) => {
      if (visited.has(current)) return;
      visited.add(current);
      // Dependencies first: a package's build may copy a dependency's output (HAL copies the panel bundle).
      for (const dependency of packageOf(current).dependencies) visit(dependency);
      if (staleReason(current) === null) return;
      const started = Date.now();
      build(packageOf(current).dir);
      built.push(current);
      // A source edited while tsup ran is for the next run to build; what this build must do is write every output.
      const unwritten = unwrittenOutput(current, started);
      if (unwritten !== null) throw new Error(`${current} was built, yet ${unwritten}`);
    };
    withBuildLock(root, () => visit(name));
    return built;
  };

  return { staleReason, ensureBuilt };
}

const LOCK_WAIT_MS = 600_000;

/**
 * Runs `work` holding the workspace's build lock (a folder under `node_modules/.cache`), so test files running in
 * parallel workers do not build the same `dist/` at once; a waiting worker then finds it fresh and builds nothing.
 */
function withBuildLock(root: string, work: () => void): void {
  const lock = path.join(root, 'node_modules/.cache/hal-test-build.lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than any build is left over from a killed run.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_WAIT_MS) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`another test run holds ${lock}`);
      else Atomics.wait(pause, 0, 0, 200);
    }
  }
  try {
    work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

let repositoryBuilder: WorkspaceBuilder | undefined;

/** {@link WorkspaceBuilder.ensureBuilt} over this repository with tsup. */
export function ensureWorkspaceBuilt(name: string): string[] {
  repositoryBuilder ??= createWorkspaceBuilder();
  return repositoryBuilder.ensureBuilt(name);
}
