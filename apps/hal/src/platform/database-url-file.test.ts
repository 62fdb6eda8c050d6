import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseUrlPath, readServingDatabaseUrl, recordServingDatabaseUrl } from './database-url-file.js';

let dataDir: string;
// A password generated per run: the file is the only place it may appear.
const url = () => `postgres://hal:${randomBytes(12).toString('hex')}@127.0.0.1:5432/hal`;

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-database-url-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('the database URL hal serve leaves for hal mcp', () => {
  it('is written 0600 into a data folder that does not exist yet, and read back', () => {
    const folder = path.join(dataDir, 'fresh');
    const recorded = url();
    recordServingDatabaseUrl(folder, recorded);
    expect(fs.statSync(databaseUrlPath(folder)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(folder).mode & 0o077).toBe(0);
    expect(readServingDatabaseUrl(folder)).toBe(recorded);
  });

  it('replaces a wider file an operator left (0644) with a 0600 one, leaving no temporary file', () => {
    fs.writeFileSync(databaseUrlPath(dataDir), 'postgres://old@127.0.0.1/old\n', { mode: 0o644 });
    fs.chmodSync(databaseUrlPath(dataDir), 0o644);
    const recorded = url();
    recordServingDatabaseUrl(dataDir, recorded);
    expect(fs.statSync(databaseUrlPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(readServingDatabaseUrl(dataDir)).toBe(recorded);
    expect(fs.readdirSync(dataDir)).toEqual(['database-url']);
  });

  it('is removed by a run on SQLite, and reads as absent then', () => {
    recordServingDatabaseUrl(dataDir, url());
    recordServingDatabaseUrl(dataDir, undefined);
    expect(fs.existsSync(databaseUrlPath(dataDir))).toBe(false);
    expect(readServingDatabaseUrl(dataDir)).toBeUndefined();
    // Nothing to remove is not an error.
    expect(() => recordServingDatabaseUrl(dataDir, undefined)).not.toThrow();
  });
});
