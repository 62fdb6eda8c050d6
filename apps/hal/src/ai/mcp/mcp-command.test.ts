import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runHalMcp } from './mcp-command.js';

let dataDir: string;

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-mcp-command-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('refuses a recorded database URL that is not PostgreSQL, naming the file and never the URL', async () => {
  const secret = randomBytes(12).toString('hex');
  fs.writeFileSync(path.join(dataDir, 'database-url'), `mysql://hal:${secret}@127.0.0.1/hal\n`, {
    mode: 0o600,
  });
  let stderr = '';
  const code = await runHalMcp({
    env: { HAL_DATA_DIR: dataDir, HAL_LOG_LEVEL: 'silent' },
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: { write: (text: string) => (stderr += text) },
  });
  expect(code).toBe(1);
  // Without the file it would look for <data>/hal.db instead.
  expect(stderr).toContain('database-url in the data folder');
  expect(stderr).not.toContain('hal.db');
  expect(stderr).not.toContain(secret);
  expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(false);
});
