import { randomBytes } from 'node:crypto';
import { executeTool } from '@hal-ai/tools';
import { translate } from '@hal-ai/ui-panel/i18n';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTestApp,
  sessionCookieFrom,
  type TestApp,
  type TestSession,
} from '../../../test/foundation.test-support.js';
import { createHalToolContext, createHalTools } from '../../ai/tools/index.js';
import { createAppVault } from '../../ai/vault/index.js';
import { requireSqlite } from '../../platform/db/database.js';
import { createLogger } from '../../platform/logger.js';
import { waitFor } from '../core/core.test-support.js';
import { CONFIDENTIAL_MASK } from '../core/core-settings.js';
import { LOCAL_SERVER_ID } from '../core/hal-core.js';

let t: TestApp;
let session: TestSession;
let logged = '';
/** A fresh secret per run: it must show up nowhere but in the vault. */
const secret = `relay-${randomBytes(18).toString('base64url')}`;

beforeEach(async () => {
  logged = '';
  t = await createTestApp({
    core: { hostname: 'hal-secrets-host' },
    build: (deps) => {
      deps.logger = createLogger({
        level: 'trace',
        destination: {
          write: (line: string) => {
            logged += line;
          },
        },
      });
    },
  });
  session = await t.login();
});

afterEach(async () => {
  await t.close();
});

const core = () => t.deps.core as NonNullable<TestApp['deps']['core']>;

async function call(method: string, path: string, json?: unknown) {
  const response = await t.request(`/ops/api/hal${path}`, { method, session, json });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : null };
}

function form(path: string, fields: Record<string, string>) {
  return t.request(path, {
    method: 'POST',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: session.csrfToken, ...fields }).toString(),
  });
}

/** Everything a secret could leak into: the database file, the audit log and the logs. */
async function assertNowhere(value: string) {
  const file = requireSqlite(t.deps.database).serialize();
  expect(file.includes(Buffer.from(value))).toBe(false);
  expect(JSON.stringify(await t.deps.audit.list({ limit: 200 }))).not.toContain(value);
  expect(logged).not.toContain(value);
}

describe('confidential settings', () => {
  it('are set from the console API into the vault, shown as set, and never returned', async () => {
    const before = await call('GET', '/settings?key=mail');
    expect(before.body.settings.find((s: { key: string }) => s.key === 'mail.relay_password')).toMatchObject({
      value: null,
      source: 'default',
    });

    const set = await call('POST', '/settings/secrets', { key: 'mail.relay_password', value: secret });
    expect(set.status).toBe(200);
    expect(set.body.setting).toMatchObject({
      key: 'mail.relay_password',
      value: CONFIDENTIAL_MASK,
      source: 'global',
    });
    expect(set.text).not.toContain(secret);

    const read = await call('GET', `/settings?serverId=${LOCAL_SERVER_ID}`);
    expect(read.text).not.toContain(secret);
    expect(read.body.settings.find((s: { key: string }) => s.key === 'mail.relay_password').value).toBe(
      CONFIDENTIAL_MASK,
    );
    // The value is in the vault, sealed: a vault over the same database opens it.
    const vault = await createAppVault({
      db: t.deps.db,
      config: { dataDir: t.deps.config.dataDir },
      env: {},
    });
    expect(await vault.get('setting:mail.relay_password')).toBe(secret);
    expect((await t.deps.audit.list({ limit: 5 })).entries[0]).toMatchObject({
      action: 'settings.secret_set',
      details: { key: 'mail.relay_password', set: true },
    });

    // A per-server override of a per-server key; a global-only key refuses one.
    const server = await call('POST', '/settings/secrets', {
      key: 'mail.relay_password',
      value: `${secret}-local`,
      serverId: LOCAL_SERVER_ID,
    });
    expect(server.body.setting.source).toBe('server');
    const globalOnly = await call('POST', '/settings/secrets', {
      key: 'alerts.webhook_secret',
      value: secret,
      serverId: LOCAL_SERVER_ID,
    });
    expect(globalOnly.status).toBe(400);
    // Only confidential keys go this way; typed keys go through PATCH /settings, which refuses secrets.
    const typed = await call('POST', '/settings/secrets', { key: 'log.level', value: 'warn' });
    expect(typed.status).toBe(400);
    expect(typed.body.error.code).toBe('validation_failed');
    const patched = await call('PATCH', '/settings', { key: 'alerts.webhook_secret', value: secret });
    expect(patched.body.error.code).toBe('secret_not_allowed');

    const removed = await call('POST', '/settings/secrets', { key: 'mail.relay_password', value: null });
    expect(removed.body.setting).toMatchObject({ value: null, source: 'default' });
    expect(await vault.has('setting:mail.relay_password')).toBe(false);
    await assertNowhere(secret);
    await assertNowhere(`${secret}-local`);
  });

  it('needs a recent password', async () => {
    t.clock.advance(11 * 60 * 1000);
    const stale = await call('POST', '/settings/secrets', { key: 'alerts.webhook_secret', value: secret });
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe('reauth_required');
    expect((await core().settings.get({ key: 'alerts' })).settings[0]?.value).toBeNull();
  });

  it('are set from the console page; the re-auth form asks for the value again instead of carrying it', async () => {
    const page = await t.request('/ops/settings', { headers: { cookie: session.cookie } });
    const html = await page.text();
    expect(html).toContain('action="/ops/settings/secret"');
    expect(html).toMatch(
      new RegExp(`<code>alerts\\.webhook_secret</code>.*?${translate('ko', 'settings_not_set')}`, 's'),
    );

    t.clock.advance(11 * 60 * 1000);
    const stale = await form('/ops/settings/secret', { key: 'alerts.webhook_secret', value: secret });
    expect(stale.status).toBe(401);
    const reauth = await stale.text();
    expect(reauth).not.toContain(secret);
    expect(reauth).toContain('name="value"');

    const done = await form('/ops/settings/secret', {
      key: 'alerts.webhook_secret',
      value: secret,
      _password: t.password,
    });
    expect(done.status).toBe(303);
    session = { ...session, cookie: sessionCookieFrom(done) as string };
    const after = await (await t.request('/ops/settings', { headers: { cookie: session.cookie } })).text();
    expect(after).toMatch(
      new RegExp(`<code>alerts\\.webhook_secret</code>.*?${translate('ko', 'settings_set_badge')}`, 's'),
    );
    expect(after).not.toContain(secret);
    await assertNowhere(secret);
  });

  it('hal_settings_set still refuses them, and hal_settings_get reports the last apply', async () => {
    const tools = createHalTools();
    const context = createHalToolContext(t.deps, {
      actor: 'operator:test',
      actions: { get: async () => undefined, pending: async () => [] },
    });
    const refused = await executeTool(
      tools,
      'hal_settings_set',
      { key: 'mail.relay_password', value: secret, serverId: LOCAL_SERVER_ID },
      context,
    );
    expect(JSON.stringify(refused)).toContain('secret_not_allowed');

    const none = await executeTool(tools, 'hal_settings_get', {}, context);
    expect(JSON.stringify(none)).toContain('"lastApply":null');
    const { job } = await core().settings.apply('operator:test', {});
    await waitFor(async () =>
      (await core().jobs.get({ id: job.id })).job.state === 'succeeded' ? true : undefined,
    );
    const read = await call('GET', '/settings');
    expect(read.body.lastApply).toMatchObject({ jobId: job.id, state: 'succeeded', target: 'servers:all' });
    const output = await executeTool(tools, 'hal_settings_get', {}, context);
    expect(JSON.stringify(output)).toContain(`"jobId":"${job.id}"`);
    await assertNowhere(secret);
  });
});
