import { connectStdioClient } from '@hal-ai/mcp/testing';
import { afterEach, expect, it } from 'vitest';
import { halMcpLaunch } from '../src/ai/mcp/mcp-launch.js';
import type { HealthReport } from '../src/domain/console-api/health.js';
import { HEARTBEAT_STALE_AFTER_MS } from '../src/platform/platform-instances.js';
import {
  createTwinInstances,
  describeEachSharedDatabase,
  type TwinInstances,
} from './twin-instances.test-support.js';

// SPEC §15 / issue #20.4: health describes the serving instances and the job runner from their heartbeats in the
// database, so every process — either instance, or `hal mcp` — reports the same HAL.

let twins: TwinInstances | undefined;
afterEach(async () => {
  await twins?.close();
  twins = undefined;
});

const ids = (report: HealthReport) => report.instances.map((instance) => instance.id).sort();

describeEachSharedDatabase('health from the heartbeats', (dialect) => {
  it('either instance lists both; a silent one drops out once its heartbeat expires, a stopped one at once', async () => {
    // An hour between heartbeats: the test sends each one itself, by the shared manual clock.
    twins = await createTwinInstances(dialect, { heartbeatIntervalMs: 60 * 60 * 1000 });
    const { a, b, clock } = twins;
    // The per-instance list is for a signed-in operator (anonymous callers get the count: app.test.ts).
    const session = await a.login();
    const health = async (instance: typeof a) => {
      const response = await instance.request('/api/health', { session });
      expect(response.status).toBe(200);
      return (await response.json()) as HealthReport;
    };
    const both = [a.runtime.instances.id, b.runtime.instances.id].sort();
    for (const [instance, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const report = await health(instance);
      expect(ids(report)).toEqual(both);
      const anonymous = await (await instance.request('/api/health')).json();
      expect(anonymous).toMatchObject({ instanceCount: 2, jobs: report.jobs });
      expect(anonymous.instances).toBeUndefined();
      expect(report.instances.find((entry) => entry.self)?.id).toBe(instance.runtime.instances.id);
      expect(report.instances.find((entry) => !entry.self)?.id).toBe(other.runtime.instances.id);
      for (const entry of report.instances)
        expect(entry.jobs).toMatchObject({ status: 'running', running: 0 });
      const concurrency = report.instances.reduce((sum, entry) => sum + (entry.jobs?.concurrency ?? 0), 0);
      expect(report.jobs).toMatchObject({ status: 'running', running: 0, queued: 0, concurrency });
    }

    // A goes silent (as after a kill -9): B keeps beating. Past the stale limit only B is serving, for both.
    clock.advance(HEARTBEAT_STALE_AFTER_MS + 1_000);
    await b.runtime.instances.beat();
    for (const instance of [a, b]) expect(ids(await health(instance))).toEqual([b.runtime.instances.id]);
    const fromA = await health(a);
    // A, not serving by the database, reports B's uptime as HAL's.
    expect(fromA.uptimeS).toBe(fromA.instances[0]?.uptimeS);
    expect(fromA.uptimeS).toBeGreaterThanOrEqual(Math.floor(HEARTBEAT_STALE_AFTER_MS / 1000));

    // B stops cleanly: it is gone at once, and no runner is left.
    await b.runtime.close(0);
    const last = await health(a);
    expect(last.instances).toEqual([]);
    expect(last.jobs).toMatchObject({ status: 'stopped', concurrency: 0 });
    expect(last.uptimeS).toBe(0);
  });

  it('hal_health through the hal mcp bin shows the serving instances and their runners, never itself', async () => {
    twins = await createTwinInstances(dialect);
    const { a, b, clock } = twins;
    // The bin reads the real clock: the shared clock follows it, so the instances' own heartbeats stay fresh
    // however long the bin takes to start on a loaded machine.
    clock.set(Date.now());
    const follow = setInterval(() => clock.set(Date.now()), 100);
    await Promise.all([a.runtime.instances.beat(), b.runtime.instances.beat()]);
    const launch = halMcpLaunch({ dataDir: twins.dataDir });
    const mcp = await connectStdioClient(
      {
        command: launch.command,
        args: launch.args,
        env: {
          ...launch.env,
          HAL_LOG_LEVEL: 'warn',
          ...(twins.databaseUrl ? { HAL_DATABASE_URL: twins.databaseUrl } : {}),
        },
      },
      { name: 'health-test', version: '1.0.0' },
    );
    let report: HealthReport;
    try {
      const result = await mcp.client.callTool({ name: 'hal_health', arguments: {} });
      expect(result.isError).toBeFalsy();
      report = result.structuredContent as unknown as HealthReport;
    } finally {
      clearInterval(follow);
      await mcp.close();
    }
    expect(report.db).toBe('ok');
    expect(ids(report)).toEqual([a.runtime.instances.id, b.runtime.instances.id].sort());
    expect(report.instances.every((instance) => !instance.self)).toBe(true);
    expect(report.jobs).toMatchObject({ status: 'running', queued: 0 });
    expect(report.jobs?.concurrency).toBeGreaterThan(0);
    expect(report.uptimeS).toBe(Math.max(...report.instances.map((instance) => instance.uptimeS)));
    // `hal mcp` never registered: the database knows only the two serving instances.
    const rows = await a.runtime.db.selectFrom('hal_instances').select(['id', 'kind']).execute();
    expect(rows.map((row) => row.kind)).toEqual(['serve', 'serve']);
  }, 120_000);
});
