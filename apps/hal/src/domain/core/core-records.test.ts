import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresTestDatabase } from '../../platform/db/database-postgres.test-support.js';
import { auditActions, createTestCore, rejection, type TestCore, waitFor } from './core.test-support.js';
import { parseVersionHistory, readVersionHistory } from './core-changelog.js';
import { CONFIDENTIAL_MASK, looksLikeSecret } from './core-settings.js';
import { LOCAL_SERVER_ID } from './hal-core.js';

const operator = 'operator:op1' as const;

/** Restores a `pg_dump -Fc` snapshot into a new database and counts the local server record there. */
async function restoredLocalServerCount(file: string): Promise<number> {
  const target = await createPostgresTestDatabase();
  try {
    const url = new URL(target.url);
    const password = decodeURIComponent(url.password);
    url.password = '';
    const restored = spawnSync('pg_restore', ['--no-owner', '--no-password', `--dbname=${url}`, file], {
      env: { ...process.env, PGPASSWORD: password },
      encoding: 'utf8',
    });
    expect(restored.stderr).toBe('');
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      const result = await client.query("select count(*)::int as n from servers where id = 'srv_local'");
      return Number(result.rows[0]?.n);
    } finally {
      await client.end();
    }
  } finally {
    await target.drop();
  }
}

describe('incidents, mail, emergency, DR, changelog, settings, overview', () => {
  let t: TestCore;
  beforeAll(async () => {
    t = await createTestCore();
  });
  afterAll(async () => {
    await t.close();
  });

  it('opens and resolves incidents; resolving twice is refused', async () => {
    const { incident } = await t.core.incidents.open('ai:conn1', {
      key: 'mail.queue-stuck',
      title: 'Outgoing mail queue is not draining',
      severity: 'major',
    });
    expect(incident).toMatchObject({ state: 'open', openedBy: 'ai:conn1', severity: 'major' });
    expect((await t.core.incidents.list({ state: 'open' })).incidents.map((i) => i.id)).toEqual([
      incident.id,
    ]);
    const { incident: resolved } = await t.core.incidents.resolve(operator, {
      id: incident.id,
      resolution: 'flushed',
    });
    expect(resolved).toMatchObject({ state: 'resolved', resolvedBy: operator, resolution: 'flushed' });
    const again = await rejection(
      t.core.incidents.resolve(operator, { id: incident.id, resolution: 'again' }),
    );
    expect(again.code).toBe('incident_resolved');
    expect((await rejection(t.core.incidents.resolve(operator, { id: 'inc_x', resolution: 'x' }))).code).toBe(
      'not_found',
    );
    const bad = await rejection(
      t.core.incidents.open(operator, { key: 'k', title: 't', severity: 'apocalyptic' } as never),
    );
    expect(bad.details.issues).toEqual([expect.objectContaining({ path: 'severity' })]);
    expect(await auditActions(t.audit)).toEqual(
      expect.arrayContaining(['incident.open', 'incident.resolve']),
    );
  });

  it('lists the seeded mail services and emergency procedures', async () => {
    const { mailServices } = await t.core.mail.list();
    expect(mailServices.map((m) => m.name)).toEqual(['dovecot', 'opendkim', 'postfix', 'rspamd']);
    const { procedures } = await t.core.emergency.list();
    expect(procedures.find((p) => p.key === 'restore-hal-db')).toMatchObject({ state: 'ready' });
    expect(procedures.every((p) => p.steps.length > 0)).toBe(true);
  });

  it('takes a DR snapshot that opens and passes integrity_check', async () => {
    expect((await t.core.dr.status()).count).toBe(0);
    const { snapshot } = await t.core.dr.snapshot(operator);
    expect(snapshot).toMatchObject({ verified: 'ok', createdBy: operator });
    expect(snapshot.sha256).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(t.dataDir, 'dr', snapshot.file);
    expect((await fs.stat(file)).size).toBe(snapshot.size);
    if (t.backup.extension === '.dump') {
      // PostgreSQL: the custom-format dump restores into an empty database with HAL's data as of the snapshot.
      expect(snapshot.file).toMatch(/\.dump$/);
      expect(await restoredLocalServerCount(file)).toBe(1);
    } else {
      const copy = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
      try {
        expect(copy.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
        // The copy holds HAL's data as of the snapshot.
        expect(copy.prepare("select count(*) as n from servers where id = 'srv_local'").get()).toEqual({
          n: 1,
        });
      } finally {
        copy.close();
      }
    }
    t.clock.advance(90_000);
    const status = await t.core.dr.status();
    expect(status).toMatchObject({ count: 1, verified: 'ok', lastAgeS: 90 });
    expect(await auditActions(t.audit)).toContain('dr.snapshot');
  });

  it('parses the version history', async () => {
    const { versions } = await t.core.changelog();
    expect(versions[0]).toMatchObject({ version: '0.1.0', date: '2026-11-30' });
    expect(versions[0]?.changes.length).toBeGreaterThan(2);
    expect(parseVersionHistory('## 1.2.0 — 2027-01-02\n- a\n  continued\n- b\n\n## 1.1.0\n* c\n')).toEqual([
      { version: '1.2.0', date: '2027-01-02', changes: ['a continued', 'b'] },
      { version: '1.1.0', date: null, changes: ['c'] },
    ]);
    expect(await readVersionHistory([path.join(t.dataDir, 'missing.md')])).toEqual([]);
  });

  it('gives effective settings per server with confidential values masked', async () => {
    const { settings } = await t.core.settings.get();
    expect(settings.find((s) => s.key === 'jobs.concurrency')).toMatchObject({ value: 2, source: 'global' });
    expect(settings.find((s) => s.key === 'deploy.health_check')).toMatchObject({
      value: true,
      source: 'default',
    });
    // A confidential value stored out of band (by the vault path) is never shown.
    await t.db
      .insertInto('settings')
      .values({
        key: 'mail.relay_password',
        server_id: null,
        value: JSON.stringify(randomBytes(12).toString('hex')),
        updated_by: 'system',
        updated_at: new Date().toISOString(),
      })
      .execute();
    const masked = (await t.core.settings.get({ key: 'mail' })).settings;
    expect(masked.map((s) => s.key)).toEqual(['mail.relay_host', 'mail.relay_password']);
    expect(masked[1]).toMatchObject({ confidential: true, value: CONFIDENTIAL_MASK });

    await t.core.settings.set(operator, { key: 'log.level', value: 'warn' });
    await t.core.settings.set(operator, { key: 'log.level', value: 'debug', serverId: LOCAL_SERVER_ID });
    expect((await t.core.settings.get({ key: 'log.level' })).settings[0]).toMatchObject({
      value: 'warn',
      source: 'global',
    });
    expect(
      (await t.core.settings.get({ key: 'log.level', serverId: LOCAL_SERVER_ID })).settings[0],
    ).toMatchObject({
      value: 'debug',
      source: 'server',
    });
    await t.core.settings.set(operator, { key: 'log.level', value: null, serverId: LOCAL_SERVER_ID });
    expect(
      (await t.core.settings.get({ key: 'log.level', serverId: LOCAL_SERVER_ID })).settings[0],
    ).toMatchObject({
      value: 'warn',
      source: 'global',
    });
    const { entries } = await t.audit.list({ actionPrefix: 'settings.set' });
    expect(entries[0]?.details).toMatchObject({ key: 'log.level', before: 'debug', after: null });
  });

  it('refuses secrets, unknown keys and ill-typed values', async () => {
    const confidential = await rejection(
      t.core.settings.set(operator, { key: 'mail.relay_password', value: 'hunter2' }),
    );
    expect(confidential.code).toBe('secret_not_allowed');
    expect(confidential.status).toBe(400);
    const token = `${randomBytes(24).toString('base64url')}Aa1`;
    expect(looksLikeSecret(token)).toBe(true);
    expect(
      (await rejection(t.core.settings.set(operator, { key: 'maintenance.banner', value: token }))).code,
    ).toBe('secret_not_allowed');
    const pem = ['-----BEGIN', 'PRIVATE KEY-----'].join(' ');
    expect(
      (await rejection(t.core.settings.set(operator, { key: 'maintenance.banner', value: pem }))).code,
    ).toBe('secret_not_allowed');
    expect(looksLikeSecret('Upgrade window tonight 22:00-23:00 UTC')).toBe(false);
    expect(looksLikeSecret('see https://status.example.com/incidents/2026-11-30/mail-relay-outage')).toBe(
      false,
    );
    expect(looksLikeSecret(randomBytes(20).toString('hex'))).toBe(true);
    expect((await rejection(t.core.settings.set(operator, { key: 'no.such', value: 1 }))).code).toBe(
      'validation_failed',
    );
    expect(
      (await rejection(t.core.settings.set(operator, { key: 'jobs.concurrency', value: 99 }))).code,
    ).toBe('validation_failed');
    expect((await rejection(t.core.settings.set(operator, { key: 'log.level', value: 'loud' }))).code).toBe(
      'validation_failed',
    );
    const global = await rejection(
      t.core.settings.set(operator, { key: 'jobs.concurrency', value: 3, serverId: LOCAL_SERVER_ID }),
    );
    expect(global.details.issues).toEqual([expect.objectContaining({ path: 'serverId' })]);
  });

  it('applies settings as a job: HAL runtime and per-server files', async () => {
    await t.core.settings.set(operator, { key: 'jobs.concurrency', value: 3 });
    const { job } = await t.core.settings.apply(operator, {});
    const done = await waitFor(async () => {
      const j = (await t.core.jobs.get({ id: job.id })).job;
      return j.state === 'succeeded' || j.state === 'failed' ? j : undefined;
    });
    expect(done.state).toBe('succeeded');
    expect(done.steps.map((s) => s.name)).toEqual(['validate', 'apply:hal', `render:${LOCAL_SERVER_ID}`]);
    expect((await t.core.status()).concurrency).toBe(3);
    const rendered = JSON.parse(
      await fs.readFile(path.join(t.dataDir, 'settings', `${LOCAL_SERVER_ID}.json`), 'utf8'),
    );
    expect(rendered['jobs.concurrency']).toBe(3);
    expect(Object.keys(rendered)).not.toContain('mail.relay_password');
  });

  it('summarises everything in the overview', async () => {
    const overview = await t.core.overview();
    expect(overview.servers.active).toBe(1);
    expect(overview.mailServices.ok).toBe(4);
    expect(overview.local?.server.id).toBe(LOCAL_SERVER_ID);
    expect(overview.dr.count).toBe(1);
    expect(overview.runner.status).toBe('running');
    expect(overview.recentJobs.length).toBeGreaterThan(0);
  });
  it('keeps only dr.retention_count snapshots, removing the oldest files', async () => {
    const before = (await t.core.dr.status()).recent.map((s) => s.file);
    await t.core.settings.set(operator, { key: 'dr.retention_count', value: 2 });
    await t.core.dr.snapshot(operator);
    await t.core.dr.snapshot(operator);
    const status = await t.core.dr.status();
    expect(status.count).toBe(2);
    for (const file of before) await expect(fs.stat(path.join(t.dataDir, 'dr', file))).rejects.toThrow();
    expect((await fs.readdir(path.join(t.dataDir, 'dr'))).sort()).toEqual(
      status.recent.map((s) => s.file).sort(),
    );
    expect(await auditActions(t.audit)).toContain('dr.prune');
  });
});

describe('DR snapshot files', () => {
  let t: TestCore;
  beforeEach(async () => {
    t = await createTestCore();
  });
  afterEach(async () => {
    await t.close();
  });

  it('writes a snapshot under a temporary name first (0600) and leaves nothing else in the folder', async () => {
    const { snapshot } = await t.core.dr.snapshot(operator);
    expect(await fs.readdir(path.join(t.dataDir, 'dr'))).toEqual([snapshot.file]);
    expect((await fs.stat(path.join(t.dataDir, 'dr', snapshot.file))).mode & 0o777).toBe(0o600);
  });

  it('removes at start-up what a crashed snapshot left, and keeps every real snapshot', async () => {
    const { snapshot } = await t.core.dr.snapshot(operator);
    const dir = path.join(t.dataDir, 'dr');
    const leftovers = [
      '.partial-hal-2026-12-01T00-00-00-000Z-deadbeef.db',
      '.partial-hal-2026-12-01T00-00-00-000Z-deadbeef.db-journal',
      'hal-2026-12-01T00-00-01-000Z-cafebabe.db',
    ];
    for (const name of leftovers) await fs.writeFile(path.join(dir, name), 'half a database');
    await fs.writeFile(path.join(dir, 'README.txt'), 'an operator note');
    await t.core.stop();
    await t.core.start();
    expect((await fs.readdir(dir)).sort()).toEqual(['README.txt', snapshot.file].sort());
    expect((await t.core.dr.status()).count).toBe(1);
  });
});
