import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe('releases and deployments', () => {
  let t: TestCore;
  beforeEach(async () => {
    t = await createTestCore();
  });
  afterEach(async () => {
    await t.close();
  });

  async function release(module: string, version: string, approve = true) {
    const artifact = await makeArtifact(t.dataDir, module, version);
    const { release } = await t.core.releases.register(operator, {
      module,
      version,
      sha256: artifact.sha256,
      artifact: artifact.file,
    });
    if (approve) await t.core.releases.approve(operator, { id: release.id });
    return { release, artifact };
  }

  async function settled(jobId: string) {
    return waitFor(async () => {
      const { job } = await t.core.jobs.get({ id: jobId });
      return ['succeeded', 'failed', 'cancelled', 'paused'].includes(job.state) ? job : undefined;
    });
  }

  const link = (module: string, name: 'current' | 'previous') =>
    fs.readlink(path.join(t.dataDir, 'agents', LOCAL_SERVER_ID, module, name)).then(
      (target) => path.basename(target),
      () => null,
    );

  it('registers an artifact into the data folder; refuses a bad digest and a duplicate', async () => {
    const { release: registered, artifact } = await release('portal', '1.0.0', false);
    expect(registered).toMatchObject({
      module: 'portal',
      version: '1.0.0',
      state: 'registered',
      sha256: artifact.sha256,
    });
    await expect(fs.stat(path.join(t.dataDir, 'artifacts', 'portal', '1.0.0.tar.gz'))).resolves.toBeTruthy();
    await expect(fs.stat(artifact.file)).rejects.toThrow(); // moved, not copied

    const other = await makeArtifact(t.dataDir, 'portal', '1.0.1');
    const mismatch = await rejection(
      t.core.releases.register(operator, {
        module: 'portal',
        version: '1.0.1',
        sha256: 'a'.repeat(64),
        artifact: other.file,
      }),
    );
    expect(mismatch.code).toBe('checksum_mismatch');
    expect(mismatch.status).toBe(400);
    const dup = await makeArtifact(t.dataDir, 'portal', '1.0.0');
    const exists = await rejection(
      t.core.releases.register(operator, {
        module: 'portal',
        version: '1.0.0',
        sha256: dup.sha256,
        artifact: dup.file,
      }),
    );
    expect(exists.code).toBe('release_exists');
    expect((await t.core.releases.list()).releases).toHaveLength(1);
    // The first artifact is untouched by the refused duplicate.
    expect((await t.core.releases.get({ id: registered.id })).release.sha256).toBe(artifact.sha256);

    await t.core.releases.approve(operator, { id: registered.id });
    expect((await rejection(t.core.releases.approve(operator, { id: registered.id }))).code).toBe(
      'invalid_state',
    );
    expect(await auditActions(t.audit)).toEqual(
      expect.arrayContaining(['release.register', 'release.approve']),
    );
  });

  it('refuses to deploy unapproved releases, HAL itself, unknown releases and inactive servers', async () => {
    await release('portal', '1.0.0', false);
    const base = { module: 'portal', version: '1.0.0', serverId: LOCAL_SERVER_ID };
    expect((await rejection(t.core.deployments.deploy(operator, base))).code).toBe('release_not_approved');
    await release('hal', '9.9.9');
    const self = await rejection(
      t.core.deployments.deploy(operator, { ...base, module: 'hal', version: '9.9.9' }),
    );
    expect(self.code).toBe('hal_self_deploy');
    expect(
      (await rejection(t.core.deployments.rollback(operator, { module: 'hal', serverId: LOCAL_SERVER_ID })))
        .code,
    ).toBe('hal_self_deploy');
    expect((await rejection(t.core.deployments.deploy(operator, { ...base, version: '2.0.0' }))).code).toBe(
      'not_found',
    );
    const { server } = await t.core.servers.create(operator, { name: 'web-1', role: 'web' });
    const { release: approved } = await release('shop', '1.0.0');
    const pending = await rejection(
      t.core.deployments.deploy(operator, { module: 'shop', version: approved.version, serverId: server.id }),
    );
    expect(pending.code).toBe('server_not_active');
    expect((await t.core.jobs.list()).jobs).toHaveLength(0);
  });

  it('deploys through the real local agent, rolls back, reverts and reconciles — the current link follows', async () => {
    await release('portal', '1.0.0');
    await release('portal', '1.1.0');

    const first = await t.core.deployments.deploy(operator, {
      module: 'portal',
      version: '1.0.0',
      serverId: LOCAL_SERVER_ID,
    });
    expect(first.job).toMatchObject({ type: 'deploy', state: 'queued', target: `server:${LOCAL_SERVER_ID}` });
    expect((await settled(first.job.id)).state).toBe('succeeded');
    expect(await link('portal', 'current')).toBe('1.0.0');

    const second = await t.core.deployments.deploy(operator, {
      module: 'portal',
      version: '1.1.0',
      serverId: LOCAL_SERVER_ID,
    });
    const done = await settled(second.job.id);
    expect(done.state).toBe('succeeded');
    expect(await link('portal', 'current')).toBe('1.1.0');
    expect(await link('portal', 'previous')).toBe('1.0.0');
    const { job: detail } = await t.core.jobs.get({ id: second.job.id });
    expect(detail.steps.map((s) => [s.name, s.state])).toEqual([
      ['verify', 'succeeded'],
      ['deploy', 'succeeded'],
      ['record', 'succeeded'],
      ['health', 'succeeded'],
    ]);
    expect(detail.steps[0]?.log).toContain('artifact verified');
    expect((await t.core.deployments.list({ serverId: LOCAL_SERVER_ID })).deployments[0]).toMatchObject({
      module: 'portal',
      desiredVersion: '1.1.0',
      actualVersion: '1.1.0',
      previousVersion: '1.0.0',
    });

    const back = await t.core.deployments.rollback(operator, { module: 'portal', serverId: LOCAL_SERVER_ID });
    expect((await settled(back.job.id)).state).toBe('succeeded');
    expect(await link('portal', 'current')).toBe('1.0.0');
    expect((await t.core.deployments.list()).deployments[0]).toMatchObject({
      desiredVersion: '1.0.0',
      actualVersion: '1.0.0',
    });

    // Revert of the 1.1.0 deploy: a rollback job linked to it.
    const revert = await t.core.jobs.control(operator, { id: first.job.id, action: 'revert' });
    expect(revert.job).toMatchObject({ type: 'rollback', parentJobId: first.job.id });
    expect((await settled(revert.job.id)).state).toBe('succeeded');
    expect(await link('portal', 'current')).toBe('1.1.0');
    const failedRevert = await rejection(
      t.core.jobs.control(operator, { id: back.job.id, action: 'revert' }),
    );
    expect(failedRevert.code).toBe('job_not_revertable');

    // The revert is a decision too: desired follows it. Drift the machine out of band; reconcile repairs it.
    expect((await t.core.deployments.list()).deployments[0]).toMatchObject({ desiredVersion: '1.1.0' });
    await t.agents.get(LOCAL_SERVER_ID)?.rollback('portal', () => {});
    expect(await link('portal', 'current')).toBe('1.0.0');
    const reconcile = await t.core.deployments.reconcile(operator, { serverId: LOCAL_SERVER_ID });
    const reconciled = await settled(reconcile.job.id);
    expect(reconciled.state).toBe('succeeded');
    expect(await link('portal', 'current')).toBe('1.1.0');
    const { job: reconcileDetail } = await t.core.jobs.get({ id: reconcile.job.id });
    expect(reconcileDetail.steps[0]?.log).toMatch(/portal: 1\.0\.0 → 1\.1\.0 by (rollback|deploy)/);
    const noop = await t.core.deployments.reconcile(operator, {});
    expect((await settled(noop.job.id)).result).toMatchObject({ [LOCAL_SERVER_ID]: [] });

    // A health check job.
    const health = await t.core.deployments.health(operator, { module: 'portal', serverId: LOCAL_SERVER_ID });
    expect((await settled(health.job.id)).state).toBe('succeeded');

    const actions = await auditActions(t.audit);
    for (const action of [
      'deploy.request',
      'deploy.rollback',
      'job.revert',
      'deploy.reconcile',
      'module.health',
      'job.running',
      'job.succeeded',
    ]) {
      expect(actions).toContain(action);
    }
  });

  it('fails a deploy whose stored artifact was tampered with, and retry links a new job', async () => {
    await release('portal', '1.0.0');
    await fs.appendFile(path.join(t.dataDir, 'artifacts', 'portal', '1.0.0.tar.gz'), 'tampered');
    const { job } = await t.core.deployments.deploy(operator, {
      module: 'portal',
      version: '1.0.0',
      serverId: LOCAL_SERVER_ID,
    });
    const failed = await settled(job.id);
    expect(failed.state).toBe('failed');
    expect(failed.error?.code).toBe('checksum_mismatch');
    expect(await link('portal', 'current')).toBeNull();
    const retry = await t.core.jobs.control(operator, { id: job.id, action: 'retry' });
    expect(retry.job).toMatchObject({ type: 'deploy', state: 'queued', parentJobId: job.id });
    expect((await settled(retry.job.id)).state).toBe('failed');
    const notRetryable = await rejection(t.core.jobs.control(operator, { id: job.id, action: 'resume' }));
    expect(notRetryable.code).toBe('job_not_resumable');
  });
});
