import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectStdioClient, type StdioClientConnection } from '@hal-ai/mcp/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HAL_DIST } from '../src/ai/mcp/mcp-build.test-support.js';
import {
  createMigratedPostgresTestDatabase,
  describePostgres,
  type PostgresTestDatabase,
} from '../src/platform/db/database-postgres.test-support.js';
import { ensureBuilt, type HalProcess, startHalProcess } from './hal-serve.test-support.js';

// Issue #20 with real processes: a built `hal serve` on PostgreSQL, then the built `hal-mcp` started the way an
// attached CLI starts it (mcp-attachment.ts): HAL_DATA_DIR and nothing else, no HAL_DATABASE_URL.

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON loosely.
type LooseJson = any;

describePostgres('hal-mcp of an attached CLI on a PostgreSQL HAL', () => {
  let database: PostgresTestDatabase;
  let dataDir: string;
  let serve: HalProcess | undefined;
  let mcp: StdioClientConnection | undefined;
  const recorded = () => path.join(dataDir, 'database-url');

  beforeAll(async () => {
    ensureBuilt();
    database = await createMigratedPostgresTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-mcp-pg-'));
    serve = await startHalProcess(dataDir, { HAL_DATABASE_URL: database.url, HAL_LOG_LEVEL: 'info' });
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await serve?.stop();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('hal serve leaves its database URL in the data folder, 0600, and never prints it', () => {
    expect(fs.statSync(recorded()).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(recorded(), 'utf8').trim()).toBe(database.url);
    // No temporary file of the atomic write stays behind.
    expect(fs.readdirSync(dataDir).filter((name) => name.startsWith('database-url'))).toEqual([
      'database-url',
    ]);
    expect(serve?.output()).not.toContain(database.url);
  });

  it('hal-mcp with only HAL_DATA_DIR serves that database: lists tools, runs a read tool, files a proposal', async () => {
    mcp = await connectStdioClient({
      command: process.execPath,
      args: [HAL_DIST.mcpBin],
      env: { HAL_DATA_DIR: dataDir, HAL_LOG_LEVEL: 'warn' },
    });
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('hal_servers_list');

    const listed = await mcp.client.callTool({ name: 'hal_servers_list', arguments: {} });
    expect(listed.isError).toBeUndefined();
    // The local server hal serve created on PostgreSQL at its first start.
    const servers =
      (listed.structuredContent as LooseJson).items ?? (listed.structuredContent as LooseJson).servers;
    expect(servers.length).toBeGreaterThanOrEqual(1);
    // It read PostgreSQL, not a SQLite file it might have created beside the URL.
    expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(false);

    // A write call becomes a proposal in that PostgreSQL database.
    const proposed = await mcp.client.callTool({
      name: 'hal_incident_open',
      arguments: { key: 'pg.mcp', title: 'Seen from hal-mcp', severity: 'minor' },
    });
    const { actionId } = proposed.structuredContent as { actionId: string };
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const rows = (await client.query('select tool, status from ai_actions where id = $1', [actionId])).rows;
      expect(rows).toEqual([{ tool: 'hal_incident_open', status: 'proposed' }]);
    } finally {
      await client.end();
    }
    expect(mcp.stderr()).not.toContain(database.url);
  }, 120_000);

  it('a later hal serve on SQLite in that folder removes the file, so hal-mcp does not open a database HAL left', async () => {
    await mcp?.close();
    mcp = undefined;
    await serve?.stop();
    // Left by the PostgreSQL run (a clean stop keeps it: an attached CLI may outlive a restart).
    expect(fs.existsSync(recorded())).toBe(true);
    serve = await startHalProcess(dataDir, { HAL_LOG_LEVEL: 'warn' });
    expect(fs.existsSync(recorded())).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'hal.db'))).toBe(true);
  }, 120_000);
});
