import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { preparePrivateDataDir } from './data-dir.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-perms-'));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('a private data folder', () => {
  it('creates the folder 0700 and reports nothing when it was private', () => {
    const dir = path.join(root, 'data');
    expect(preparePrivateDataDir(dir)).toEqual({ widenedMode: null });
    expect(modeOf(dir)).toBe(0o700);
  });

  it('narrows an existing 0755 folder and its 0644 database, WAL and SHM to 0700 / 0600, and says so', async () => {
    const dir = path.join(root, 'data');
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const file = path.join(dir, 'hal.db');
    // An older HAL left a world-readable database with its WAL and SHM open.
    const old = openDatabase(file);
    await migrateToLatest(old.db);
    for (const suffix of ['', '-wal', '-shm']) fs.chmodSync(`${file}${suffix}`, 0o644);
    await old.close();

    expect(preparePrivateDataDir(dir)).toEqual({ widenedMode: '0755' });
    expect(modeOf(dir)).toBe(0o700);
    const database = openDatabase(file);
    try {
      database.sqlite.exec('CREATE TABLE written_after (x INTEGER)');
      for (const suffix of ['', '-wal', '-shm']) {
        if (fs.existsSync(`${file}${suffix}`)) expect(modeOf(`${file}${suffix}`), suffix || 'db').toBe(0o600);
      }
    } finally {
      await database.close();
    }
  });

  it('creates a new database whose WAL and SHM are 0600 under the usual 022 umask', async () => {
    const file = path.join(root, 'fresh.db');
    const database = openDatabase(file);
    try {
      await migrateToLatest(database.db);
      expect(fs.existsSync(`${file}-wal`)).toBe(true);
      for (const suffix of ['', '-wal', '-shm'])
        expect(modeOf(`${file}${suffix}`), suffix || 'db').toBe(0o600);
    } finally {
      await database.close();
    }
  });
});
