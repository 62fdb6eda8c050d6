import fs from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../../../test/foundation.test-support.js';
import { makeArtifact } from '../core/core.test-support.js';
import { LOCAL_SERVER_ID } from '../core/hal-core.js';

/*
 * The console form of a high operation makes the operation's early refusal before step 1: an operator is never
 * asked to confirm three times what the core then refuses (the drift issue #14 names: the forms skipped
 * `servers.check` and `assertReleaseApprovable`).
 */

let t: TestApp;
let session: TestSession;

beforeEach(async () => {
  t = await createTestApp({ core: { hostname: 'hal-forms-host' } });
  session = await t.login();
});

afterEach(async () => {
  await t.close();
});

async function post(pathname: string, fields: Record<string, string> = {}) {
  const body = new URLSearchParams({ _csrf: session.csrfToken, ...fields });
  const response = await t.request(pathname, {
    method: 'POST',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: response.status, html: await response.text() };
}

const STEP_ONE = '영향을 읽었습니다';

async function auditCount(): Promise<number> {
  return (await t.deps.audit.list({ limit: 200 })).entries.length;
}

describe('console forms of high operations', () => {
  it('refuse HAL’s own server and a server in the wrong state before step 1', async () => {
    const before = await auditCount();
    const own = await post(`/ops/servers/${LOCAL_SERVER_ID}/isolate`, { reason: 'testing' });
    expect(own.html).toContain('server_is_local');
    expect(own.html).not.toContain(STEP_ONE);
    expect(own.status).toBeGreaterThanOrEqual(400);

    const { server } = await t.deps.core.servers.create('operator:setup', { name: 'web-9', role: 'web' });
    await t.deps.core.servers.approve('operator:setup', { id: server.id });
    await t.deps.core.servers.isolate('operator:setup', { id: server.id, reason: 'first' });
    const again = await post(`/ops/servers/${server.id}/isolate`, { reason: 'again' });
    expect(again.html).toContain('invalid_state');
    expect(again.html).not.toContain(STEP_ONE);
    await t.deps.core.servers.delete('operator:setup', { id: server.id });
    const deleted = await post(`/ops/servers/${server.id}/delete`);
    expect(deleted.html).toContain('invalid_state');
    expect(deleted.html).not.toContain(STEP_ONE);
    // Nothing was done for the refused forms: only the setup's own four entries were added.
    expect(await auditCount()).toBe(before + 4);
  });

  it('refuse approving a release that is not registered before step 1', async () => {
    const dir = await fs.mkdtemp(`${t.deps.config.dataDir}/forms-`);
    const { file, sha256 } = await makeArtifact(dir, 'portal', '2.0.0');
    const { release } = await t.deps.core.releases.register('operator:setup', {
      module: 'portal',
      version: '2.0.0',
      sha256,
      artifact: file,
    });
    const first = await post(`/ops/releases/${release.id}/approve`);
    expect(first.status).toBe(200);
    expect(first.html).toContain(STEP_ONE);

    await t.deps.core.releases.approve('operator:setup', { id: release.id });
    const approved = await post(`/ops/releases/${release.id}/approve`);
    expect(approved.html).toContain('invalid_state');
    expect(approved.html).not.toContain(STEP_ONE);
  });
});
