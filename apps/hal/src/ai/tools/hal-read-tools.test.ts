import type { Action } from '@hal-ai/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SERVER_ID } from '../../domain/core/hal-core.js';
import { approvedRelease, createToolHarness, jobEnds, type ToolHarness } from './hal-tools.test-support.js';

let h: ToolHarness;
let serverId: string;
let deployJobId: string;

beforeAll(async () => {
  h = await createToolHarness();
  // Console-side history for the reads to show: a pending server, a deployed release, an incident, a
  // setting override, a DR snapshot.
  serverId = (await h.core.servers.create('operator:setup', { name: 'web-1', role: 'web' })).server.id;
  await approvedRelease(h, 'portal', '1.0.0');
  const { job } = await h.core.deployments.deploy('operator:setup', {
    module: 'portal',
    version: '1.0.0',
    serverId: LOCAL_SERVER_ID,
  });
  deployJobId = job.id;
  expect(await jobEnds(h, job.id)).toBe('succeeded');
  await h.core.incidents.open('operator:setup', {
    key: 'mail.queue',
    title: 'Queue stuck',
    severity: 'major',
  });
  await h.core.settings.set('operator:setup', {
    key: 'log.level',
    value: 'debug',
    serverId: LOCAL_SERVER_ID,
  });
  await h.core.dr.snapshot('operator:setup');
}, 60_000);

afterAll(async () => {
  await h.close();
});

/** The tool's output without the `meanings` / `meaning` it adds for the model. */
function data(output: Record<string, unknown>): Record<string, unknown> {
  const { meanings: _meanings, meaning: _meaning, ...rest } = output;
  return rest;
}

describe('read tools return what the console API returns', () => {
  it.each([
    ['hal_servers_list', {}, '/servers'],
    ['hal_servers_list', { state: 'pending' }, '/servers?state=pending'],
    ['hal_releases_list', {}, '/releases'],
    ['hal_releases_list', { module: 'portal', state: 'approved' }, '/releases?module=portal&state=approved'],
    ['hal_jobs_list', {}, '/jobs'],
    ['hal_jobs_list', { type: 'deploy', limit: 1 }, '/jobs?type=deploy&limit=1'],
    ['hal_incidents_list', { severity: 'major' }, '/incidents?severity=major'],
    ['hal_audit_list', { prefix: 'deploy.' }, '/audit?prefix=deploy.'],
    ['hal_audit_list', { limit: 3 }, '/audit?limit=3'],
    ['hal_settings_get', {}, '/settings'],
    [
      'hal_settings_get',
      { serverId: LOCAL_SERVER_ID, key: 'log' },
      `/settings?serverId=${LOCAL_SERVER_ID}&key=log`,
    ],
    ['hal_dr_status', {}, '/dr'],
  ] as const)('%s %j = GET %s', async (name, args, path) => {
    const output = await h.output(name, args);
    const console = await h.consoleGet(path);
    expect(console.status).toBe(200);
    expect(data(output)).toEqual(console.body);
  });

  it('hal_server_get and hal_job_get (by id)', async () => {
    for (const [name, path, id] of [
      ['hal_server_get', '/servers/', LOCAL_SERVER_ID],
      ['hal_server_get', '/servers/', serverId],
      ['hal_job_get', '/jobs/', deployJobId],
    ] as const) {
      const output = await h.output(name, { id });
      expect(data(output)).toEqual((await h.consoleGet(`${path}${id}`)).body);
    }
    const server = await h.output<{
      deployments: Array<{ module: string; actualVersion: string }>;
      meaning: string;
    }>('hal_server_get', { id: LOCAL_SERVER_ID });
    expect(server.deployments).toContainEqual(
      expect.objectContaining({ module: 'portal', actualVersion: '1.0.0' }),
    );
    expect(server.meaning).toMatch(/in service/);
    const job = await h.output<{ job: { steps: unknown[] }; meaning: string }>('hal_job_get', {
      id: deployJobId,
    });
    expect(job.job.steps.length).toBeGreaterThan(0);
    expect(job.meaning).toBe('every step finished');
  });

  it('hal_overview, hal_mail_services_list, hal_changelog, hal_emergency_list', async () => {
    const overview = await h.output<{ overview: unknown; meanings: { servers: Record<string, string> } }>(
      'hal_overview',
    );
    const consoleOverview = (await h.consoleGet('/overview')).body;
    // The local host's metrics are sampled live; everything else must be identical.
    const withoutLive = (value: unknown) => ({ ...(value as object), local: null });
    expect(withoutLive(overview.overview)).toEqual(withoutLive(consoleOverview.overview));
    expect(overview.meanings.servers).toMatchObject({
      pending: expect.any(String),
      active: expect.any(String),
    });

    const mail = await h.output<{ mailServices: unknown[]; nextCursor: string | null; meanings: object }>(
      'hal_mail_services_list',
    );
    expect(mail.mailServices).toEqual((await h.consoleGet('/mail-services')).body.mailServices);
    expect(mail.nextCursor).toBeNull();
    const firstTwo = await h.output<{ mailServices: Array<{ name: string }>; nextCursor: string }>(
      'hal_mail_services_list',
      { limit: 2 },
    );
    expect(firstTwo.mailServices).toEqual(mail.mailServices.slice(0, 2));
    const rest = await h.output<{ mailServices: unknown[]; nextCursor: string | null }>(
      'hal_mail_services_list',
      {
        cursor: firstTwo.nextCursor,
      },
    );
    expect(rest.mailServices).toEqual(mail.mailServices.slice(2));
    expect(rest.nextCursor).toBeNull();

    const changelog = await h.output<{ versions: unknown[]; nextCursor: string | null }>('hal_changelog');
    expect(changelog).toEqual({ ...(await h.consoleGet('/changelog')).body, nextCursor: null });
    expect(changelog.versions.length).toBeGreaterThan(0);

    const emergency = await h.output<{ procedures: unknown[] }>('hal_emergency_list');
    expect(emergency.procedures).toEqual((await h.consoleGet('/emergency')).body.procedures);
  });

  it('pages the database lists with nextCursor like the console', async () => {
    await h.core.servers.create('operator:setup', { name: 'web-2', role: 'web' });
    const first = await h.output<{ servers: Array<{ id: string }>; nextCursor: string }>('hal_servers_list', {
      limit: 1,
    });
    expect(first.servers).toHaveLength(1);
    expect(first.nextCursor).toBe(first.servers[0]?.id);
    const second = await h.output('hal_servers_list', { limit: 1, cursor: first.nextCursor });
    expect(data(second)).toEqual((await h.consoleGet(`/servers?limit=1&cursor=${first.nextCursor}`)).body);
  });

  it('hal_server_metrics samples the local host and keeps history', async () => {
    const first = await h.output<{ current: { uptimeS: number } | null; history: unknown[] }>(
      'hal_server_metrics',
      {
        id: LOCAL_SERVER_ID,
      },
    );
    expect(first.current?.uptimeS).toBeGreaterThan(0);
    const console = await h.consoleGet(`/servers/${LOCAL_SERVER_ID}/metrics`);
    expect((console.body.history as unknown[]).length).toBe(first.history.length + 1);
    const missing = await h.run('hal_server_metrics', { id: 'srv_missing' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('hal_health returns what GET /api/health returns to a signed-in operator', async () => {
    // The tool is a signed-in reader: it gets the full report, instances included, which an anonymous request to the
    // route does not (the anonymous answer is only SPEC §13's shape and a count).
    const output = await h.output('hal_health');
    const response = await h.t.request('/api/health', { session: h.session });
    expect(output).toEqual(await response.json());
    expect(output).toMatchObject({ db: 'ok', jobs: { status: expect.any(String) } });
  });

  it('hal_skill returns the skill document', async () => {
    const output = await h.output<{ skill: string; format: string }>('hal_skill');
    expect(output.format).toBe('markdown');
    expect(output.skill).toContain('# HAL skill');
    const response = await h.t.request('/ops/api/ai/skill', { session: h.session });
    expect(await response.json()).toEqual(output);
  });

  it('hal_action_status and hal_actions_pending read the proposals', async () => {
    const action = (id: string, status: Action['status']): Action => ({
      id,
      roomId: 'room_1',
      connectionId: 'conn_test',
      source: 'model',
      tool: 'hal_server_approve',
      args: { id: serverId },
      risk: 'write',
      identifiers: [],
      status,
      createdAt: '2030-01-01T00:00:00.000Z',
      decidedBy: null,
      decidedAt: null,
      result: null,
      error: null,
      tainted: false,
    });
    h.actions.add(action('act_1', 'proposed'));
    h.actions.add(action('act_2', 'executed'));
    h.actions.add(action('act_3', 'proposed'));
    const status = await h.output<{ action: Action; meaning: string }>('hal_action_status', { id: 'act_2' });
    expect(status.action.status).toBe('executed');
    expect(status.meaning).toMatch(/^ran/);
    expect(await h.run('hal_action_status', { id: 'act_9' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    const pending = await h.output<{ actions: Action[]; nextCursor: string | null }>('hal_actions_pending', {
      limit: 1,
    });
    expect(pending.actions.map((a) => a.id)).toEqual(['act_1']);
    const next = await h.output<{ actions: Action[]; nextCursor: string | null }>('hal_actions_pending', {
      cursor: pending.nextCursor,
    });
    expect(next).toEqual({ actions: [expect.objectContaining({ id: 'act_3' })], nextCursor: null });
  });

  it('reads leave no audit entry', async () => {
    const before = (await h.t.deps.audit.list({ limit: 1 })).entries[0]?.id;
    for (const name of [
      'hal_overview',
      'hal_servers_list',
      'hal_dr_status',
      'hal_settings_get',
      'hal_audit_list',
    ]) {
      await h.output(name);
    }
    expect((await h.t.deps.audit.list({ limit: 1 })).entries[0]?.id).toBe(before);
  });
});
