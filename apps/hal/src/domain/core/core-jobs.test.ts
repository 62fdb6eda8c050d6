import { afterEach, describe, expect, it } from 'vitest';
import type { NodeAgent } from './agent.js';
import {
  auditActions,
  createTestCore,
  makeArtifact,
  rejection,
  type TestCore,
  waitFor,
} from './core.test-support.js';
import { LOCAL_SERVER_ID } from './hal-core.js';

const operator = 'operator:op1' as const;

/** Wraps the local agent so `deploy` waits until the test opens the gate. */
function gated() {
  let open: () => void = () => {};
  let entered = false;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const wrap = (agent: NodeAgent): NodeAgent => ({
    serverId: agent.serverId,
    metrics: () => agent.metrics(),
    modules: () => agent.modules(),
    health: (module) => agent.health(module),
    rollback: (module, log) => agent.rollback(module, log),
    async deploy(artifact, log) {
      entered = true;
      log('waiting at the gate');
      await gate;
      return agent.deploy(artifact, log);
    },
  });
  return { wrap, open: () => open(), entered: () => entered };
}

async function prepare(t: TestCore, version = '1.0.0') {
  const artifact = await makeArtifact(t.dataDir, 'portal', version);
  const { release } = await t.core.releases.register(operator, {
    module: 'portal',
    version,
    sha256: artifact.sha256,
    artifact: artifact.file,
  });
  await t.core.releases.approve(operator, { id: release.id });
  return t.core.deployments.deploy(operator, { module: 'portal', version, serverId: LOCAL_SERVER_ID });
}

const state = (t: TestCore, id: string) => t.core.jobs.get({ id }).then((r) => r.job);

describe('job control', () => {
  const open: TestCore[] = [];
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
  });

  it('cancels and stops queued jobs, resumes paused ones, refuses the rest', async () => {
    const t = await createTestCore();
    open.push(t);
    await t.core.stop(); // jobs stay queued
    const { job } = await prepare(t);
    const stopped = await t.core.jobs.control(operator, { id: job.id, action: 'stop' });
    expect(stopped.job.state).toBe('paused');
    expect((await t.core.jobs.control(operator, { id: job.id, action: 'resume' })).job.state).toBe('queued');
    const cancelled = await t.core.jobs.control(operator, { id: job.id, action: 'cancel' });
    expect(cancelled.job).toMatchObject({ state: 'cancelled' });
    expect(cancelled.job.finishedAt).not.toBeNull();
    for (const action of ['cancel', 'stop', 'resume', 'revert'] as const) {
      const error = await rejection(t.core.jobs.control(operator, { id: job.id, action }));
      expect(error.code).toBe(
        `job_not_${action === 'cancel' ? 'cancellable' : action === 'stop' ? 'stoppable' : `${action.replace(/e$/, '')}able`}`,
      );
      expect(error.status).toBe(409);
    }
    const retried = await t.core.jobs.control(operator, { id: job.id, action: 'retry' });
    expect(retried.job).toMatchObject({ state: 'queued', parentJobId: job.id, type: 'deploy' });
    expect(
      (await rejection(t.core.jobs.control(operator, { id: 'job_missing', action: 'cancel' }))).code,
    ).toBe('not_found');
    const actions = await auditActions(t.audit);
    expect(actions.filter((a) => a.startsWith('job.'))).toEqual([
      'job.stop',
      'job.resume',
      'job.cancel',
      'job.retry',
    ]);
    const { entries } = await t.audit.list({ actionPrefix: 'job.cancel' });
    expect(entries[0]?.details).toMatchObject({ before: { state: 'queued' }, after: { state: 'cancelled' } });
  });

  it('cancels a running job at the next step boundary', async () => {
    const g = gated();
    const t = await createTestCore({ wrapLocal: g.wrap });
    open.push(t);
    const { job } = await prepare(t);
    await waitFor(async () => g.entered());
    const requested = await t.core.jobs.control(operator, { id: job.id, action: 'cancel' });
    expect(requested.job).toMatchObject({ state: 'running', control: 'cancel' });
    expect((await rejection(t.core.jobs.control(operator, { id: job.id, action: 'cancel' }))).code).toBe(
      'job_not_cancellable',
    );
    g.open();
    const done = await waitFor(async () => {
      const j = await state(t, job.id);
      return j.state === 'cancelled' ? j : undefined;
    });
    expect(done.steps.map((s) => s.state)).toEqual(['succeeded', 'succeeded', 'pending', 'pending']);
  });

  it('stops a running job into paused and resumes it from the next step', async () => {
    const g = gated();
    const t = await createTestCore({ wrapLocal: g.wrap });
    open.push(t);
    const { job } = await prepare(t);
    await waitFor(async () => g.entered());
    expect((await t.core.jobs.control(operator, { id: job.id, action: 'stop' })).job.control).toBe('stop');
    g.open();
    await waitFor(async () => (await state(t, job.id)).state === 'paused');
    await t.core.jobs.control(operator, { id: job.id, action: 'resume' });
    const done = await waitFor(async () => {
      const j = await state(t, job.id);
      return j.state === 'succeeded' ? j : undefined;
    });
    expect(done.attempts).toBe(2);
    expect(done.steps.every((s) => s.state === 'succeeded')).toBe(true);
    expect(done.steps[0]?.log.match(/artifact verified/g)).toHaveLength(1); // verify ran once, not again
  });

  it('marks a job killed mid-step as failed (interrupted) when HAL starts again', async () => {
    const g = gated();
    const t = await createTestCore({ wrapLocal: g.wrap });
    const { job } = await prepare(t);
    await waitFor(async () => g.entered());
    await t.core.stop(100); // the step is still blocked: abandoned, like a crash
    await t.close();
    const reopened = await createTestCore({ dataDir: t.dataDir, start: false });
    open.push(reopened);
    expect((await state(reopened, job.id)).state).toBe('running'); // what a crash leaves behind
    const { interrupted } = await reopened.core.start();
    expect(interrupted).toBe(1);
    const after = await state(reopened, job.id);
    expect(after).toMatchObject({ state: 'failed', error: { code: 'interrupted' } });
    expect(after.steps.find((s) => s.name === 'deploy')).toMatchObject({ state: 'failed' });
    expect(after.steps.find((s) => s.name === 'deploy')?.log).toContain('interrupted');
    expect(await auditActions(reopened.audit)).toContain('job.interrupted');
    // A retry of the interrupted job runs to completion.
    const { job: retry } = await reopened.core.jobs.control(operator, { id: job.id, action: 'retry' });
    const final = await waitFor(async () => {
      const j = await state(reopened, retry.id);
      return ['succeeded', 'failed'].includes(j.state) ? j : undefined;
    });
    expect(final).toMatchObject({ state: 'succeeded' });
    // The abandoned step may now finish; it must not write to the closed database or change the record.
    g.open();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await state(reopened, job.id)).state).toBe('failed');
  });

  it('lists jobs newest first with filters and paging', async () => {
    const t = await createTestCore();
    open.push(t);
    await t.core.stop(); // jobs stay queued
    await prepare(t, '1.0.0');
    await prepare(t, '1.0.1');
    await prepare(t, '1.0.2');
    const page = await t.core.jobs.list({ limit: 2 });
    expect(page.jobs.map((j) => j.args.version)).toEqual(['1.0.2', '1.0.1']);
    const rest = await t.core.jobs.list({ limit: 2, cursor: page.nextCursor ?? undefined });
    expect(rest.jobs.map((j) => j.args.version)).toEqual(['1.0.0']);
    expect(rest.nextCursor).toBeNull();
    expect((await t.core.jobs.list({ state: 'failed' })).jobs).toHaveLength(0);
    expect((await t.core.jobs.list({ type: 'deploy' })).jobs).toHaveLength(3);
  });
});
