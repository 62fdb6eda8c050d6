import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenDatabase, openDatabase } from './database.js';

let database: OpenDatabase | undefined;
let dir: string | undefined;
afterEach(async () => {
  await database?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  database = undefined;
  dir = undefined;
});

describe('openDatabase', () => {
  it('opens a file in WAL mode with synchronous = NORMAL (no fsync per commit) and foreign keys on', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-db-'));
    database = openDatabase(path.join(dir, 'hal.db'));
    expect(database.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    // 1 = NORMAL (2 = FULL, SQLite's default).
    expect(database.sqlite.pragma('synchronous', { simple: true })).toBe(1);
    expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(database.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
  });
});
