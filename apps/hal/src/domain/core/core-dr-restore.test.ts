import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli.js';
import { createTestClock, createTestCore, rejection, type TestCore } from './core.test-support.js';
import { restoreSnapshot } from './core-dr-restore.js';

function output() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

// `hal db restore` restores SQLite files; on PostgreSQL it refuses and points to pg_restore (tested in the CLI).
describe.skipIf(process.env.HAL_TEST_DIALECT === 'postgres')('hal db restore', () => {
  const folders: string[] = [];
  let open: TestCore | undefined;

  afterEach(async () => {
    await open?.close();
    open = undefined;
    for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** A data folder with incident `before` in a snapshot and incident `after` taken later (HAL still open). */
  async function snapshotThenChange(): Promise<{ dataDir: string; snapshot: string }> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-restore-'));
    folders.push(dataDir);
    open = await createTestCore({ dataDir, start: false });
    await open.core.incidents.open('system', { key: 'before.snapshot', title: 'before', severity: 'minor' });
    const { snapshot } = await open.core.dr.snapshot('system');
    await open.core.incidents.open('system', { key: 'after.snapshot', title: 'after', severity: 'minor' });
    return { dataDir, snapshot: snapshot.file };
  }

  async function incidentKeys(core: TestCore): Promise<string[]> {
    return (await core.core.incidents.list({})).incidents.map((incident) => incident.key).sort();
  }

  it('refuses while HAL holds the database open, then restores the old state once it is stopped', async () => {
    const { dataDir, snapshot } = await snapshotThenChange();
    const env = { HAL_DATA_DIR: dataDir };

    const refused = { stdout: output(), stderr: output() };
    expect(await runCli(['db', 'restore', snapshot], { env, ...refused })).toBe(1);
    expect(refused.stderr.text()).toMatch(/in use by a running HAL.*stop it first/);
    // Nothing was touched: the running HAL still sees its own latest state.
    expect(await incidentKeys(open as TestCore)).toEqual(['after.snapshot', 'before.snapshot']);

    await open?.close();
    open = undefined;
    const done = { stdout: output(), stderr: output() };
    expect(await runCli(['db', 'restore', snapshot], { env, ...done })).toBe(0);
    expect(done.stdout.text()).toContain(`restored ${snapshot} into ${path.join(dataDir, 'hal.db')}`);
    const kept = /kept as (\S+)/.exec(done.stdout.text())?.[1] ?? '';
    expect(kept).toMatch(/hal\.db\.before-restore-/);

    open = await createTestCore({ dataDir, start: false });
    expect(await incidentKeys(open)).toEqual(['before.snapshot']);
    // The snapshot restored from is still listed (the snapshot never holds its own row), so a later start keeps it.
    const status = await open.core.dr.status();
    expect(status.recent.map((entry) => entry.file)).toContain(snapshot);
    expect(await open.core.dr.removeLeftovers()).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'dr', snapshot))).toBe(true);
    const audit = await open.audit.list({ actionPrefix: 'dr.restore' });
    expect(audit.entries[0]?.details).toMatchObject({ snapshot, registered: [snapshot] });
    await open.close();
    open = undefined;

    // The database as it was before the restore can itself be restored from the kept copy.
    const back = await restoreSnapshot({ dataDir, snapshot: kept, clock: createTestClock() });
    expect(back.previous).not.toBeNull();
    open = await createTestCore({ dataDir, start: false });
    expect(await incidentKeys(open)).toEqual(['after.snapshot', 'before.snapshot']);
  });

  it('refuses a snapshot that changed since it was taken, a file that is no database, and a missing one', async () => {
    const { dataDir, snapshot } = await snapshotThenChange();
    await open?.close();
    open = undefined;
    const clock = createTestClock();
    const file = path.join(dataDir, 'dr', snapshot);
    const database = path.join(dataDir, 'hal.db');
    const before = fs.readFileSync(database);

    // Same schema, other content: sound for SQLite, but not what HAL recorded.
    const other = await createTestCore({ start: false });
    folders.push(other.dataDir);
    await other.core.incidents.open('system', { key: 'foreign.state', title: 'foreign', severity: 'minor' });
    await other.close();
    fs.copyFileSync(other.dbFile, file);
    expect((await rejection(restoreSnapshot({ dataDir, snapshot, clock }))).code).toBe('checksum_mismatch');

    fs.writeFileSync(file, 'not a database at all');
    expect((await rejection(restoreSnapshot({ dataDir, snapshot, clock }))).code).toBe('validation_failed');
    expect((await rejection(restoreSnapshot({ dataDir, snapshot: 'hal-none.db', clock }))).code).toBe(
      'not_found',
    );
    // Every refusal left the database alone.
    expect(fs.readFileSync(database).equals(before)).toBe(true);
    expect(fs.readdirSync(dataDir).filter((name) => name.includes('before-restore'))).toEqual([]);
  });
});
