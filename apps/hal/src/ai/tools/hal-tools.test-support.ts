import fs from 'node:fs/promises';
import type { Action } from '@hal-ai/spec';
import { executeTool, type ToolOutcome, type ToolRegistry } from '@hal-ai/tools';
import { createTestApp, type TestApp, type TestSession } from '../../../test/foundation.test-support.js';
import { makeArtifact, waitFor } from '../../domain/core/core.test-support.js';
import type { HalCore } from '../../domain/core/hal-core.js';
import { createHalToolContext, type HalToolActions, type HalToolContext } from './hal-tool-context.js';
import { createHalTools } from './index.js';

/** The actor every harness tool call acts as. */
export const TEST_AI_ACTOR = 'ai:conn_test' as const;

/** A real action list (what the room store provides), held in memory for tests. */
export interface TestActions extends HalToolActions {
  add(action: Action): void;
}

/** Creates {@link TestActions}. */
export function createTestActions(): TestActions {
  const byId = new Map<string, Action>();
  return {
    add(action) {
      byId.set(action.id, action);
    },
    async get(id) {
      return byId.get(id);
    },
    async pending() {
      return [...byId.values()].filter((action) => action.status === 'proposed');
    },
  };
}

/** A HAL app over a migrated SQLite with a running core, a signed-in operator and the tool registry. */
export interface ToolHarness {
  t: TestApp;
  core: HalCore;
  session: TestSession;
  tools: ToolRegistry<HalToolContext>;
  context: HalToolContext;
  actions: TestActions;
  /** Runs a tool through `executeTool` (validation included) as {@link TEST_AI_ACTOR}. */
  run(name: string, args?: unknown): Promise<ToolOutcome>;
  /** Runs a tool that must succeed and returns its output. */
  output<T = Record<string, unknown>>(name: string, args?: unknown): Promise<T>;
  /** `GET /ops/api/hal<path>` as the signed-in operator. */
  consoleGet(path: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** Builds a {@link ToolHarness}; the core's local agent deploys into the app's temp data folder. */
export async function createToolHarness(): Promise<ToolHarness> {
  const t = await createTestApp({ core: { hostname: 'hal-tools-host' } });
  const core = t.deps.core;
  const session = await t.login();
  const actions = createTestActions();
  const tools = createHalTools();
  const context = createHalToolContext(t.deps, { actor: TEST_AI_ACTOR, actions });
  const run = (name: string, args: unknown = {}) => executeTool(tools, name, args, context);
  return {
    t,
    core,
    session,
    tools,
    context,
    actions,
    run,
    async output<T>(name: string, args: unknown = {}) {
      const outcome = await run(name, args);
      if (!outcome.ok) throw new Error(`${name} failed: ${JSON.stringify(outcome.error)}`);
      return outcome.output as T;
    },
    async consoleGet(path) {
      const response = await t.request(`/ops/api/hal${path}`, { session });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    async close() {
      await t.close();
    },
  };
}

/** Registers and approves `module@version` as an operator (console-side setup), returning the release id. */
export async function approvedRelease(h: ToolHarness, module: string, version: string): Promise<string> {
  const dir = await fs.mkdtemp(`${h.t.deps.config.dataDir}/art-`);
  const { file, sha256 } = await makeArtifact(dir, module, version);
  const { release } = await h.core.releases.register('operator:setup', {
    module,
    version,
    sha256,
    artifact: file,
  });
  await h.core.releases.approve('operator:setup', { id: release.id });
  return release.id;
}

/** Waits until a job has ended and returns its final state. */
export async function jobEnds(h: ToolHarness, id: string): Promise<string> {
  return waitFor(async () => {
    const { job } = await h.core.jobs.get({ id });
    return ['succeeded', 'failed', 'cancelled'].includes(job.state) ? job.state : undefined;
  });
}
