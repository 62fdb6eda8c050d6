import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../domain/audit/types.js';
import { makeArtifact } from '../../domain/core/core.test-support.js';
import { LOCAL_SERVER_ID } from '../../domain/core/hal-core.js';
import {
  approvedRelease,
  createToolHarness,
  jobEnds,
  TEST_AI_ACTOR,
  type ToolHarness,
} from './hal-tools.test-support.js';

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
}, 60_000);
afterEach(async () => {
  await h.close();
});

/** Audit entries appended after `afterId`, oldest first. */
async function auditSince(afterId: number): Promise<AuditEntry[]> {
  const { entries } = await h.t.deps.audit.list({ limit: 200 });
  return entries.filter((e) => e.id > afterId).reverse();
}

async function lastAuditId(): Promise<number> {
  return (await h.t.deps.audit.list({ limit: 1 })).entries[0]?.id ?? 0;
}

async function impactOf(name: string, args: unknown): Promise<Record<string, unknown>> {
  const tool = h.tools.get(name);
  if (!tool?.impact) throw new Error(`${name} has no impact`);
  return (await tool.impact(h.context, args)) as Record<string, unknown>;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  throw new Error('expected a refusal');
}

describe('write tools', () => {
  it('server lifecycle, incidents and DR change state and audit as the AI actor', async () => {
    const mark = await lastAuditId();
    const created = await h.output<{ server: { id: string; state: string }; meaning: string }>(
      'hal_server_create',
      {
        name: 'web-1',
        role: 'web',
      },
    );
    expect(created.server.state).toBe('pending');
    expect(created.meaning).toMatch(/approve/);
    const id = created.server.id;
    const duplicate = await h.run('hal_server_create', { name: 'web-1', role: 'web' });
    expect(duplicate).toMatchObject({ ok: false, error: { code: 'conflict' } });

    expect((await h.output<{ server: { state: string } }>('hal_server_approve', { id })).server.state).toBe(
      'active',
    );
    expect(await h.run('hal_server_approve', { id })).toMatchObject({
      ok: false,
      error: { code: 'server_not_pending' },
    });
    expect(
      (await h.output<{ server: { state: string } }>('hal_server_maintenance', { id, on: true })).server
        .state,
    ).toBe('maintenance');
    expect(
      (await h.output<{ server: { state: string } }>('hal_server_maintenance', { id, on: false })).server
        .state,
    ).toBe('active');

    const incident = await h.output<{ incident: { id: string; state: string; openedBy: string } }>(
      'hal_incident_open',
      {
        key: 'disk.full',
        title: 'Disk almost full on web-1',
        severity: 'critical',
        detail: 'disk.freeBytes under 5 %',
      },
    );
    expect(incident.incident).toMatchObject({ state: 'open', openedBy: TEST_AI_ACTOR });
    const resolved = await h.output<{ incident: { state: string; resolution: string } }>(
      'hal_incident_resolve',
      {
        id: incident.incident.id,
        resolution: 'Old logs rotated',
      },
    );
    expect(resolved.incident).toMatchObject({ state: 'resolved', resolution: 'Old logs rotated' });
    expect(
      await h.run('hal_incident_resolve', { id: incident.incident.id, resolution: 'again' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'incident_resolved' },
    });

    const snapshot = await h.output<{ snapshot: { verified: string; createdBy: string }; meaning: string }>(
      'hal_dr_snapshot',
    );
    expect(snapshot.snapshot).toMatchObject({ verified: 'ok', createdBy: TEST_AI_ACTOR });
    expect((await h.core.dr.status()).count).toBe(1);

    const entries = await auditSince(mark);
    expect(entries.map((e) => e.action)).toEqual([
      'server.create',
      'server.approve',
      'server.maintenance',
      'server.maintenance',
      'incident.open',
      'incident.resolve',
      'dr.snapshot',
    ]);
    expect(new Set(entries.map((e) => e.actor))).toEqual(new Set([TEST_AI_ACTOR]));
  });

  it('module health and job control queue real jobs', async () => {
    const health = await h.output<{ job: { id: string; type: string; state: string; createdBy: string } }>(
      'hal_module_health',
      { module: 'ghost', serverId: LOCAL_SERVER_ID },
    );
    expect(health.job).toMatchObject({ type: 'module_health', state: 'queued', createdBy: TEST_AI_ACTOR });
    expect(await jobEnds(h, health.job.id)).toBe('failed');

    const retried = await h.output<{ job: { id: string; parentJobId: string } }>('hal_job_control', {
      id: health.job.id,
      action: 'retry',
      reason: 'check again',
    });
    expect(retried.job.parentJobId).toBe(health.job.id);
    expect(await jobEnds(h, retried.job.id)).toBe('failed');
    expect(await h.run('hal_job_control', { id: health.job.id, action: 'resume' })).toMatchObject({
      ok: false,
      error: { code: 'job_not_resumable' },
    });
    const actions = (await auditSince(0)).filter((e) => e.actor === TEST_AI_ACTOR).map((e) => e.action);
    expect(actions).toEqual(['module.health', 'job.retry']);
  });
});

describe('high tools', () => {
  it('isolate and delete a server, with the impact shown before', async () => {
    const { server } = await h.core.servers.create('operator:setup', { name: 'db-1', role: 'db' });
    await h.core.servers.approve('operator:setup', { id: server.id });
    expect(h.tools.get('hal_server_isolate')?.identifiers?.({ id: server.id, reason: 'x' })).toEqual([
      server.id,
    ]);
    const impact = await impactOf('hal_server_isolate', { id: server.id, reason: 'disk errors in dmesg' });
    expect(impact).toMatchObject({
      server: { id: server.id, name: 'db-1', state: 'active' },
      change: { state: { from: 'active', to: 'isolated' } },
      reason: 'disk errors in dmesg',
    });
    const isolated = await h.output<{ server: { state: string; isolatedReason: string } }>(
      'hal_server_isolate',
      {
        id: server.id,
        reason: 'disk errors in dmesg',
      },
    );
    expect(isolated.server).toMatchObject({ state: 'isolated', isolatedReason: 'disk errors in dmesg' });
    expect(await refusal(impactOf('hal_server_isolate', { id: LOCAL_SERVER_ID, reason: 'x' }))).toBe(
      'server_is_local',
    );
    expect(await refusal(impactOf('hal_server_isolate', { id: server.id, reason: 'again' }))).toBe(
      'invalid_state',
    );
    expect(await h.run('hal_server_isolate', { id: LOCAL_SERVER_ID, reason: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'server_is_local' },
    });

    expect(await impactOf('hal_server_delete', { id: server.id })).toMatchObject({
      change: { state: { from: 'isolated', to: 'deleted' } },
    });
    expect(
      (await h.output<{ server: { state: string } }>('hal_server_delete', { id: server.id })).server.state,
    ).toBe('deleted');
    expect(await refusal(impactOf('hal_server_delete', { id: server.id }))).toBe('invalid_state');
    expect(await h.run('hal_server_delete', { id: LOCAL_SERVER_ID })).toMatchObject({
      ok: false,
      error: { code: 'server_is_local' },
    });
    const mine = (await auditSince(0)).filter((e) => e.actor === TEST_AI_ACTOR).map((e) => e.action);
    expect(mine).toEqual(['server.isolate', 'server.delete']);
  });

  it('approve a release, deploy it (never hal), revert and roll back', async () => {
    const dir = h.t.deps.config.dataDir;
    const { file, sha256 } = await makeArtifact(dir, 'portal', '1.0.0');
    const { release } = await h.core.releases.register('operator:setup', {
      module: 'portal',
      version: '1.0.0',
      sha256,
      artifact: file,
    });
    expect(await impactOf('hal_release_approve', { id: release.id })).toMatchObject({
      release: { module: 'portal', version: '1.0.0', sha256 },
      change: { state: { from: 'registered', to: 'approved' } },
    });
    const approved = await h.output<{ release: { state: string; approvedBy: string } }>(
      'hal_release_approve',
      {
        id: release.id,
      },
    );
    expect(approved.release).toMatchObject({ state: 'approved', approvedBy: TEST_AI_ACTOR });
    expect(await refusal(impactOf('hal_release_approve', { id: release.id }))).toBe('invalid_state');

    const deployArgs = { module: 'portal', version: '1.0.0', serverId: LOCAL_SERVER_ID };
    expect(h.tools.get('hal_module_deploy')?.identifiers?.(deployArgs)).toEqual([
      LOCAL_SERVER_ID,
      'portal@1.0.0',
    ]);
    expect(await impactOf('hal_module_deploy', deployArgs)).toMatchObject({
      server: { id: LOCAL_SERVER_ID, name: 'hal-tools-host' },
      change: { module: 'portal', from: null, to: '1.0.0' },
    });
    const self = { ...deployArgs, module: 'hal' };
    expect(await refusal(impactOf('hal_module_deploy', self))).toBe('hal_self_deploy');
    expect(await h.run('hal_module_deploy', self)).toMatchObject({
      ok: false,
      error: { code: 'hal_self_deploy' },
    });
    expect(await h.run('hal_module_rollback', { module: 'hal', serverId: LOCAL_SERVER_ID })).toMatchObject({
      ok: false,
      error: { code: 'hal_self_deploy' },
    });
    expect(await refusal(impactOf('hal_module_rollback', { module: 'hal', serverId: LOCAL_SERVER_ID }))).toBe(
      'hal_self_deploy',
    );
    expect(await h.run('hal_module_deploy', { ...deployArgs, version: '9.9.9' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });

    const first = await h.output<{ job: { id: string } }>('hal_module_deploy', deployArgs);
    expect(await jobEnds(h, first.job.id)).toBe('succeeded');
    await approvedRelease(h, 'portal', '1.1.0');
    const second = await h.output<{ job: { id: string } }>('hal_module_deploy', {
      ...deployArgs,
      version: '1.1.0',
    });
    expect(await jobEnds(h, second.job.id)).toBe('succeeded');
    const actual = async () =>
      (await h.core.servers.get({ id: LOCAL_SERVER_ID })).deployments.find((d) => d.module === 'portal');
    expect(await actual()).toMatchObject({ actualVersion: '1.1.0', previousVersion: '1.0.0' });

    expect(
      await impactOf('hal_module_rollback', { module: 'portal', serverId: LOCAL_SERVER_ID }),
    ).toMatchObject({
      change: { module: 'portal', from: '1.1.0', to: '1.0.0' },
    });
    const rollback = await h.output<{ job: { id: string; type: string } }>('hal_module_rollback', {
      module: 'portal',
      serverId: LOCAL_SERVER_ID,
      reason: '1.1.0 throws on start',
    });
    expect(rollback.job.type).toBe('rollback');
    expect(await jobEnds(h, rollback.job.id)).toBe('succeeded');
    expect(await actual()).toMatchObject({ actualVersion: '1.0.0' });

    expect(await refusal(impactOf('hal_job_revert', { id: rollback.job.id }))).toBe('job_not_revertable');
    expect(await h.run('hal_job_revert', { id: rollback.job.id })).toMatchObject({
      ok: false,
      error: { code: 'job_not_revertable' },
    });
    expect(await impactOf('hal_job_revert', { id: first.job.id })).toMatchObject({
      job: { id: first.job.id, type: 'deploy' },
      server: { name: 'hal-tools-host' },
    });
    const revert = await h.output<{ job: { id: string; type: string; parentJobId: string } }>(
      'hal_job_revert',
      {
        id: first.job.id,
      },
    );
    expect(revert.job).toMatchObject({ type: 'rollback', parentJobId: first.job.id });
    await jobEnds(h, revert.job.id);

    expect(await impactOf('hal_module_reconcile', { serverId: LOCAL_SERVER_ID })).toMatchObject({
      server: { id: LOCAL_SERVER_ID },
    });
    const reconcile = await h.output<{ job: { id: string; type: string } }>('hal_module_reconcile', {
      serverId: LOCAL_SERVER_ID,
    });
    expect(reconcile.job.type).toBe('reconcile');
    expect(await jobEnds(h, reconcile.job.id)).toBe('succeeded');

    const mine = (await auditSince(0)).filter((e) => e.actor === TEST_AI_ACTOR).map((e) => e.action);
    expect(mine).toEqual([
      'release.approve',
      'deploy.request',
      'deploy.request',
      'deploy.rollback',
      'job.revert',
      'deploy.reconcile',
    ]);
  }, 60_000);

  it('config (global) and settings (per server) refuse secrets; apply queues a job', async () => {
    const rows = async () => h.t.deps.db.selectFrom('settings').selectAll().orderBy('key').execute();
    const before = await rows();
    // A credential-shaped value generated per run: 32 random bytes, base64.
    const tokenLike = randomBytes(32).toString('base64');
    const refusedCalls: Array<[string, Record<string, unknown>, string]> = [
      ['hal_config_set', { key: 'alerts.webhook_secret', value: 'anything' }, 'secret_not_allowed'],
      ['hal_config_set', { key: 'maintenance.banner', value: `token ${tokenLike}` }, 'secret_not_allowed'],
      [
        'hal_settings_set',
        { key: 'mail.relay_password', value: 'x', serverId: LOCAL_SERVER_ID },
        'secret_not_allowed',
      ],
      ['hal_config_set', { key: 'nope.key', value: 1 }, 'validation_failed'],
      ['hal_config_set', { key: 'jobs.concurrency', value: 99 }, 'validation_failed'],
      [
        'hal_settings_set',
        { key: 'jobs.concurrency', value: 3, serverId: LOCAL_SERVER_ID },
        'validation_failed',
      ],
      ['hal_settings_set', { key: 'log.level', value: 'debug', serverId: 'srv_missing' }, 'not_found'],
    ];
    for (const [name, args, code] of refusedCalls) {
      expect(await refusal(impactOf(name, args)), `${name} impact ${JSON.stringify(args)}`).toBe(code);
      expect(await h.run(name, args), `${name} ${JSON.stringify(args)}`).toMatchObject({
        ok: false,
        error: { code },
      });
    }
    expect(await rows()).toEqual(before);

    expect(h.tools.get('hal_config_set')?.identifiers?.({ key: 'jobs.concurrency', value: 3 })).toEqual([
      'jobs.concurrency',
    ]);
    expect(await impactOf('hal_config_set', { key: 'jobs.concurrency', value: 3 })).toMatchObject({
      change: { key: 'jobs.concurrency', from: 2, fromSource: 'global', to: 3 },
    });
    const config = await h.output<{ setting: { value: number; source: string } }>('hal_config_set', {
      key: 'jobs.concurrency',
      value: 3,
    });
    expect(config.setting).toMatchObject({ value: 3, source: 'global' });

    const perServer = { key: 'log.level', value: 'debug', serverId: LOCAL_SERVER_ID };
    expect(await impactOf('hal_settings_set', perServer)).toMatchObject({
      server: { id: LOCAL_SERVER_ID, name: 'hal-tools-host' },
      change: { key: 'log.level', from: 'info', to: 'debug' },
    });
    const setting = await h.output<{ setting: { value: string; source: string } }>(
      'hal_settings_set',
      perServer,
    );
    expect(setting.setting).toMatchObject({ value: 'debug', source: 'server' });
    expect((await h.core.settings.get({ key: 'log.level' })).settings[0]?.value).toBe('info');

    expect(await impactOf('hal_settings_apply', {})).toMatchObject({ server: 'all active servers' });
    const apply = await h.output<{ job: { id: string; type: string } }>('hal_settings_apply', {});
    expect(apply.job.type).toBe('settings_apply');
    expect(await jobEnds(h, apply.job.id)).toBe('succeeded');
    expect((await h.core.status()).concurrency).toBe(3);

    const mine = (await auditSince(0)).filter((e) => e.actor === TEST_AI_ACTOR);
    expect(mine.map((e) => e.action)).toEqual(['settings.set', 'settings.set', 'settings.apply']);
    expect(mine[1]).toMatchObject({
      target: `server:${LOCAL_SERVER_ID}`,
      details: { before: null, after: 'debug' },
    });
    expect(JSON.stringify(await auditSince(0))).not.toContain(tokenLike);
  });
});
