import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../../../test/foundation.test-support.js';
import { makeArtifact, waitFor } from '../core/core.test-support.js';
import { LOCAL_SERVER_ID } from '../core/hal-core.js';

let t: TestApp;
let session: TestSession;

beforeEach(async () => {
  t = await createTestApp({ core: { hostname: 'hal-route-host' } });
  session = await t.login();
});

afterEach(async () => {
  await t.close();
});

const api = (p: string) => `/ops/api/hal${p}`;

async function call(method: string, p: string, json?: unknown) {
  const response = await t.request(api(p), { method, session, ...(json === undefined ? {} : { json }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Runs a high-risk request through all three steps, checking the first answer on the way. */
async function confirmed(method: string, p: string, json: Record<string, unknown>, identifiers?: string[]) {
  const first = await call(method, p, json);
  expect(first.status).toBe(409);
  expect(first.body.error.code).toBe('three_step_required');
  if (identifiers) expect(first.body.error.identifiers).toEqual(identifiers);
  return call(method, p, {
    ...json,
    confirmToken: first.body.error.confirmToken,
    confirmImpact: true,
    confirmIdentifiers: first.body.error.identifiers,
    confirmExecute: true,
  });
}

async function upload(fields: Record<string, string>, file?: { path: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (file) form.set('artifact', new Blob([await fs.readFile(file.path)]), 'artifact.tar.gz');
  const response = await t.request(api('/releases'), { method: 'POST', session, body: form });
  return { status: response.status, body: await response.json() };
}

describe('/ops/api/hal', () => {
  it('needs a session (401) and a CSRF token on writes (403)', async () => {
    const anonymous = await t.request(api('/servers'));
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('unauthenticated');
    const noToken = await t.request(api('/servers'), {
      method: 'POST',
      headers: { cookie: session.cookie },
      json: { name: 'web-1', role: 'web' },
    });
    expect(noToken.status).toBe(403);
    expect((await noToken.json()).error.code).toBe('csrf_failed');
  });

  it('wraps every read', async () => {
    const servers = await call('GET', '/servers');
    expect(servers.body).toEqual({
      servers: [expect.objectContaining({ id: LOCAL_SERVER_ID })],
      nextCursor: null,
    });
    expect((await call('GET', '/overview')).body.overview.servers).toEqual({ active: 1 });
    expect((await call('GET', '/releases')).body).toEqual({ releases: [], nextCursor: null });
    expect((await call('GET', '/jobs')).body).toEqual({ jobs: [], nextCursor: null });
    expect((await call('GET', '/incidents')).body).toEqual({ incidents: [], nextCursor: null });
    expect((await call('GET', '/mail-services')).body.mailServices).toHaveLength(4);
    expect((await call('GET', '/emergency')).body.procedures.length).toBeGreaterThan(0);
    expect((await call('GET', '/dr')).body.dr).toMatchObject({ count: 0, verified: 'unknown' });
    expect((await call('GET', '/changelog')).body.versions[0].version).toBe('0.1.0');
    expect((await call('GET', '/settings')).body.settings.length).toBeGreaterThan(3);
    const audit = await call('GET', '/audit?limit=5');
    expect(Object.keys(audit.body).sort()).toEqual(['entries', 'nextCursor']);
    expect(audit.body.entries.length).toBeGreaterThan(0);
    expect((await call('GET', '/jobs/job_missing')).status).toBe(404);
    const badLimit = await call('GET', '/servers?limit=9999');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.issues[0].path).toBe('limit');
  });

  it('runs the server lifecycle: write needs a recent password, high needs three steps', async () => {
    const created = await call('POST', '/servers', { name: 'web-1', role: 'web' });
    expect(created.status).toBe(201);
    const id = created.body.server.id;
    expect((await call('POST', `/servers/${id}/approve`)).body.server.state).toBe('active');
    const again = await call('POST', `/servers/${id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('server_not_pending');
    expect((await call('POST', `/servers/${id}/maintenance`, { on: true })).body.server.state).toBe(
      'maintenance',
    );
    const invalid = await call('POST', `/servers/${id}/maintenance`, { on: 'yes' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.issues[0].path).toBe('on');

    const first = await call('POST', `/servers/${id}/isolate`, { reason: 'compromised' });
    expect(first.status).toBe(409);
    expect(first.body.error).toMatchObject({
      code: 'three_step_required',
      identifiers: ['web-1', id],
      impact: { change: { state: { from: 'maintenance', to: 'isolated' } } },
    });
    const mismatch = await call('POST', `/servers/${id}/isolate`, {
      reason: 'compromised',
      confirmToken: first.body.error.confirmToken,
      confirmImpact: true,
      confirmIdentifiers: ['web-2', id],
      confirmExecute: true,
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('identifiers_mismatch');
    const isolated = await confirmed('POST', `/servers/${id}/isolate`, { reason: 'compromised' });
    expect(isolated.status).toBe(200);
    expect(isolated.body.server).toMatchObject({ state: 'isolated', isolatedReason: 'compromised' });

    const deleted = await confirmed('DELETE', `/servers/${id}`, {}, ['web-1', id]);
    expect(deleted.body.server.state).toBe('deleted');
    const twice = await call('DELETE', `/servers/${id}`, {});
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('invalid_state');
    // Refused before any confirmation is asked for.
    const local = await call('DELETE', `/servers/${LOCAL_SERVER_ID}`, {});
    expect(local.status).toBe(409);
    expect(local.body.error.code).toBe('server_is_local');

    // Past the re-authentication window, writes answer 401 reauth_required.
    t.clock.advance(11 * 60 * 1000);
    const stale = await call('POST', '/servers', { name: 'web-3', role: 'web' });
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe('reauth_required');
    expect((await call('GET', '/servers')).status).toBe(200);
  });

  it('uploads releases (checksum mismatch 400, duplicate 409), approves, deploys and follows the job', async () => {
    const artifact = await makeArtifact(t.deps.config.dataDir, 'portal', '1.0.0');
    const digest = createHash('sha256')
      .update(await fs.readFile(artifact.file))
      .digest('hex');
    const wrong = await upload(
      { module: 'portal', version: '1.0.0', sha256: 'b'.repeat(64) },
      { path: artifact.file },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('checksum_mismatch');
    const missing = await upload({ module: 'portal', version: '1.0.0', sha256: digest });
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues[0].path).toBe('artifact');
    const ok = await upload({ module: 'portal', version: '1.0.0', sha256: digest }, { path: artifact.file });
    expect(ok.status).toBe(201);
    expect(ok.body.release).toMatchObject({
      module: 'portal',
      version: '1.0.0',
      state: 'registered',
      sha256: digest,
    });
    const dup = await upload({ module: 'portal', version: '1.0.0', sha256: digest }, { path: artifact.file });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('release_exists');
    // Temp uploads never pile up.
    expect(await fs.readdir(path.join(t.deps.config.dataDir, 'uploads'))).toEqual([]);

    const deployBody = { module: 'portal', version: '1.0.0', serverId: LOCAL_SERVER_ID };
    const early = await call('POST', '/deployments', deployBody);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('release_not_approved'); // refused before any confirmation

    const approved = await confirmed('POST', `/releases/${ok.body.release.id}/approve`, {}, [
      'portal',
      '1.0.0',
    ]);
    expect(approved.body.release.state).toBe('approved');
    const reapprove = await call('POST', `/releases/${ok.body.release.id}/approve`, {});
    expect(reapprove.status).toBe(409);
    expect(reapprove.body.error.code).toBe('invalid_state');

    const self = await call('POST', '/deployments', { ...deployBody, module: 'hal' });
    expect(self.status).toBe(409);
    expect(self.body.error.code).toBe('hal_self_deploy');

    const deployed = await confirmed('POST', '/deployments', deployBody, ['hal-route-host', 'portal@1.0.0']);
    expect(deployed.status).toBe(202);
    expect(deployed.body.job).toMatchObject({ type: 'deploy', state: 'queued' });
    const job = await waitFor(async () => {
      const { body } = await call('GET', `/jobs/${deployed.body.job.id}`);
      return body.job.state === 'succeeded' || body.job.state === 'failed' ? body.job : undefined;
    });
    expect(job.state).toBe('succeeded');
    expect(job.steps).toHaveLength(4);
    const link = await fs.readlink(
      path.join(t.deps.config.dataDir, 'agents', LOCAL_SERVER_ID, 'portal', 'current'),
    );
    expect(path.basename(link)).toBe('1.0.0');

    const cancel = await call('POST', `/jobs/${job.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('job_not_cancellable');
    const revert = await confirmed('POST', `/jobs/${job.id}/revert`, {});
    // Nothing to roll back to: the job is queued and fails on the agent's refusal.
    expect(revert.status).toBe(202);
    expect(revert.body.job).toMatchObject({ type: 'rollback', parentJobId: job.id });
  });

  it('opens and resolves incidents, snapshots DR, sets and applies settings', async () => {
    const opened = await call('POST', '/incidents', {
      key: 'disk.full',
      title: 'Disk almost full',
      severity: 'minor',
    });
    expect(opened.status).toBe(201);
    const resolved = await call('POST', `/incidents/${opened.body.incident.id}/resolve`, {
      resolution: 'rotated logs',
    });
    expect(resolved.body.incident.state).toBe('resolved');
    expect(
      (await call('POST', `/incidents/${opened.body.incident.id}/resolve`, { resolution: 'x' })).body.error
        .code,
    ).toBe('incident_resolved');

    const snapshot = await call('POST', '/dr/snapshots');
    expect(snapshot.status).toBe(201);
    expect(snapshot.body.snapshot.verified).toBe('ok');

    const secret = await call('PATCH', '/settings', { key: 'mail.relay_password', value: 'x' });
    expect(secret.status).toBe(400);
    expect(secret.body.error.code).toBe('secret_not_allowed');
    const set = await confirmed('PATCH', '/settings', { key: 'log.level', value: 'warn' }, ['log.level']);
    expect(set.body.setting).toMatchObject({ key: 'log.level', value: 'warn', source: 'global' });
    const apply = await confirmed('POST', '/settings/apply', {}, ['all servers']);
    expect(apply.status).toBe(202);
    expect(apply.body.job.type).toBe('settings_apply');

    const { body } = await call('GET', '/audit?prefix=incident.');
    expect(body.entries.map((e: { action: string }) => e.action)).toEqual([
      'incident.resolve',
      'incident.open',
    ]);
    expect(body.entries[0].actor).toBe(`operator:${t.operator.id}`);
  });
});
