import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createManualClock } from '../../../test/foundation.test-support.js';
import type { OpenDatabase } from '../../platform/db/database.js';
import { describeEachDialect } from '../../platform/db/database-dialects.test-support.js';
import { AUDIT_GENESIS_HASH, computeAuditHash, createAuditLog, verifyAuditChain } from './audit-log.js';
import type { AuditLog } from './types.js';

describeEachDialect('audit log', (dialect) => {
  let database: OpenDatabase;
  let audit: AuditLog;
  const clock = createManualClock();

  beforeEach(async () => {
    database = await dialect.open();
    audit = createAuditLog({ db: database.db, clock });
  });
  afterEach(async () => {
    await database.close();
  });

  async function appendFive() {
    for (let i = 1; i <= 5; i += 1) {
      clock.advance(1000);
      await audit.append({
        actor: 'operator:o1',
        action: 'server.approve',
        target: `server:s${i}`,
        details: { n: i },
      });
    }
  }

  it('chains every entry to the previous one from 64 zeros, and verifies', async () => {
    await appendFive();
    const { entries } = await audit.list();
    const ascending = [...entries].reverse();
    expect(ascending[0]?.prevHash).toBe(AUDIT_GENESIS_HASH);
    for (let i = 1; i < ascending.length; i += 1) expect(ascending[i]?.prevHash).toBe(ascending[i - 1]?.hash);
    const first = ascending[0];
    if (!first) throw new Error('no entries');
    expect(first.hash).toBe(computeAuditHash(AUDIT_GENESIS_HASH, first));
    expect(await verifyAuditChain(database.db)).toEqual({ ok: true, count: 5 });
  });

  it('never lets two concurrent appends share a prev_hash', async () => {
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        audit.append({ actor: 'system', action: 'test.concurrent', details: { i } }),
      ),
    );
    const rows = await database.db.selectFrom('audit').select('prev_hash').execute();
    expect(new Set(rows.map((row) => row.prev_hash)).size).toBe(25);
    expect(await verifyAuditChain(database.db)).toEqual({ ok: true, count: 25 });
  });

  it("writes inside the caller's transaction, and a rollback leaves no trace", async () => {
    await audit.append({ actor: 'system', action: 'a.one' });
    await database.db
      .transaction()
      .execute(async (trx) => {
        await audit.append({ actor: 'system', action: 'a.rolled_back' }, trx);
        throw new Error('abort');
      })
      .catch(() => undefined);
    await database.db.transaction().execute((trx) => audit.append({ actor: 'system', action: 'a.two' }, trx));
    const { entries } = await audit.list();
    expect(entries.map((entry) => entry.action)).toEqual(['a.two', 'a.one']);
    expect(await verifyAuditChain(database.db)).toEqual({ ok: true, count: 2 });
  });

  it('detects an altered row and names it', async () => {
    await appendFive();
    await sql`UPDATE audit SET details = '{"n":99}' WHERE id = 3`.execute(database.db);
    expect(await verifyAuditChain(database.db)).toEqual({ ok: false, brokenAt: 3, reason: 'hash_mismatch' });
  });

  it('detects an altered row whose own hash was recomputed (the next row no longer links)', async () => {
    await appendFive();
    const row =
      (await sql<Record<string, string>>`SELECT * FROM audit WHERE id = 2`.execute(database.db)).rows[0] ??
      {};
    const forged = {
      at: row.at ?? '',
      actor: 'operator:intruder',
      action: row.action ?? '',
      target: row.target ?? null,
      details: { n: 2 },
    };
    const hash = computeAuditHash(row.prev_hash ?? '', forged);
    await sql`UPDATE audit SET actor = 'operator:intruder', hash = ${hash} WHERE id = 2`.execute(database.db);
    expect(await verifyAuditChain(database.db)).toEqual({
      ok: false,
      brokenAt: 3,
      reason: 'prev_hash_mismatch',
    });
  });

  it('detects an inserted row', async () => {
    await appendFive();
    const third = await database.db
      .selectFrom('audit')
      .select('hash')
      .where('id', '=', 3)
      .executeTakeFirstOrThrow();
    const forged = {
      at: new Date(clock.now()).toISOString(),
      actor: 'system',
      action: 'x.forged',
      target: null,
      details: null,
    };
    // A row appended with a stale prev_hash, as if slipped in after entry 3.
    await database.db
      .insertInto('audit')
      .values({
        id: 6,
        at: forged.at,
        actor: forged.actor,
        action: forged.action,
        target: null,
        details: null,
        prev_hash: third.hash,
        hash: computeAuditHash(third.hash, forged),
      })
      .execute();
    expect(await verifyAuditChain(database.db)).toEqual({
      ok: false,
      brokenAt: 6,
      reason: 'prev_hash_mismatch',
    });
  });

  it('detects a row deleted from the middle and from the end', async () => {
    await appendFive();
    await sql`DELETE FROM audit WHERE id = 5`.execute(database.db);
    expect(await verifyAuditChain(database.db)).toEqual({ ok: false, brokenAt: 5, reason: 'missing_rows' });
    await sql`DELETE FROM audit WHERE id = 2`.execute(database.db);
    expect(await verifyAuditChain(database.db)).toEqual({ ok: false, brokenAt: 3, reason: 'missing_rows' });
  });

  it('passes details through the redact hook before hashing and storing', async () => {
    const secret = randomBytes(24).toString('hex');
    const redacting = createAuditLog({
      db: database.db,
      clock,
      redact: (value) => JSON.parse(JSON.stringify(value).replaceAll(secret, '[redacted]')),
    });
    const entry = await redacting.append({
      actor: 'system',
      action: 'ai.connection.create',
      details: { apiKey: secret },
    });
    expect(entry.details).toEqual({ apiKey: '[redacted]' });
    const stored = await database.db.selectFrom('audit').select('details').execute();
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(await verifyAuditChain(database.db)).toEqual({ ok: true, count: 1 });
  });

  it('lists newest first with a cursor and an action prefix (LIKE wildcards are literal)', async () => {
    await appendFive();
    await audit.append({ actor: 'system', action: 'auth_x.login' });
    await audit.append({ actor: 'system', action: 'auth.login' });
    const page1 = await audit.list({ limit: 3 });
    expect(page1.entries.map((entry) => entry.id)).toEqual([7, 6, 5]);
    const page2 = await audit.list({ limit: 3, cursor: page1.nextCursor ?? '' });
    expect(page2.entries.map((entry) => entry.id)).toEqual([4, 3, 2]);
    const page3 = await audit.list({ limit: 3, cursor: page2.nextCursor ?? '' });
    expect(page3.entries.map((entry) => entry.id)).toEqual([1]);
    expect(page3.nextCursor).toBeNull();
    expect((await audit.list({ actionPrefix: 'auth_' })).entries.map((entry) => entry.action)).toEqual([
      'auth_x.login',
    ]);
    expect((await audit.list({ actionPrefix: 'auth.' })).entries.map((entry) => entry.action)).toEqual([
      'auth.login',
    ]);
  });
});
