import { createHash } from 'node:crypto';
import { HAL_ERROR_CODES } from '@hal-ai/spec';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from '../../src/ai/rooms/room-app.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';
import { type RawMcp, startRawMcp } from './hostile-mcp.test-support.js';
import {
  type NearMiss,
  nearMissArgs,
  nearMissesByKind,
  type ToolJsonSchema,
  validArgs,
} from './hostile-tool-args.test-support.js';

/*
 * Property-based fuzzing of every HAL tool's arguments, through the two entries a model or an MCP client has:
 * the real `hal mcp` command (its stdio framing, the running HAL's database) and a room turn whose model (the
 * OpenAI fake) answers with tool calls. The tools and their schemas are read from the server (`tools/list`), never
 * listed here. Runs are seeded and bounded: a failure prints its seed and the shrunk counterexample.
 */
const SEED = 0x4a1_2026;
const SWEEP_EACH = 2;
const MCP_NEAR_MISS_RUNS = 150;
const MCP_VALID_RUNS = 120;
const ROOM_TURNS = 6;
const CALLS_PER_TURN = 8;
const KNOWN_CODES = new Set<string>(HAL_ERROR_CODES);
/** The invalid params of a `tools/call` whose `arguments` is not an object: the SDK answers it as JSON-RPC. */
const JSONRPC_INVALID_PARAMS = -32602;
/** What a proposal (and its note in the room) writes: every other table must stay as it was. */
const PROPOSAL_TABLES = new Set(['ai_actions', 'ai_messages', 'ai_rooms', 'ai_rooms_next', 'audit']);

interface ListedTool {
  name: string;
  inputSchema: ToolJsonSchema;
  annotations?: { readOnlyHint?: boolean };
}

let hal: RoomTestApp;
let mcp: RawMcp;
let tools: ListedTool[];

/** A digest of every table's rows (or of every table but `skip`): equal digests mean nothing was written. */
async function fingerprint(skip: ReadonlySet<string> = new Set()): Promise<Record<string, string>> {
  const tables = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(
    hal.deps.db,
  );
  const digest: Record<string, string> = {};
  for (const { name } of tables.rows) {
    if (skip.has(name)) continue;
    const rows = await sql.raw(`select * from "${name}" order by rowid`).execute(hal.deps.db);
    digest[name] = createHash('sha256').update(JSON.stringify(rows.rows)).digest('hex');
  }
  return digest;
}

async function proposalCount(): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*) as n from ai_actions`.execute(hal.deps.db);
  return Number(rows.rows[0]?.n ?? 0);
}

function toolCode(answer: { result?: Record<string, unknown> }): string | undefined {
  const structured = answer.result?.structuredContent as { error?: { code?: string } } | undefined;
  return answer.result?.isError === true ? structured?.error?.code : undefined;
}

beforeAll(async () => {
  hal = await createRoomTestApp();
  // The console has been opened once: the fixed rooms exist (a refused call must then change nothing at all).
  expect((await hal.call('GET', '/ops/api/ai/rooms')).status).toBe(200);
  mcp = startRawMcp(hal.dataDir);
  const initialized = await mcp.initialize('hostile-fuzzer');
  expect(initialized.result).toBeDefined();
  const listed = await mcp.request('tools/list');
  tools = (listed.result?.tools ?? []) as ListedTool[];
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await hal?.close();
});

describe('hostile: tool-argument fuzzing over every tool schema', () => {
  it('enumerates the tools from the server, the same registry the rooms use', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      hal.deps.tools
        .list()
        .map((tool) => tool.name)
        .sort(),
    );
    expect(tools.length).toBeGreaterThan(30);
  });

  it('refuses near-miss arguments over MCP with validation_failed: no throw, no state change, no proposal', async (context) => {
    const { tally, check } = createTally();
    const kinds = new Map<string, number>();
    let badExecutions = 0;
    /** One call; `each` compares the whole database around it (the sweep compares once per tool instead). */
    const attempt = async ({ tool, miss }: { tool: ListedTool; miss: NearMiss }, each = true) => {
      const before = each ? await fingerprint() : undefined;
      const proposals = await proposalCount();
      const answer = await mcp.request('tools/call', { name: tool.name, arguments: miss.args });
      const refused =
        toolCode(answer) === 'validation_failed' ||
        (miss.kind === 'not_an_object' && answer.error?.code === JSONRPC_INVALID_PARAMS);
      const label = `${tool.name} ${miss.kind}: ${JSON.stringify(answer).slice(0, 300)}`;
      check(refused, label);
      kinds.set(miss.kind, (kinds.get(miss.kind) ?? 0) + 1);
      if ((await proposalCount()) !== proposals) badExecutions += 1;
      if (before) expect(await fingerprint(), label).toEqual(before);
      expect(refused, label).toBe(true);
      expect(mcp.running()).toBe(true);
    };
    // A sweep first: every tool × every property × every way to miss it, so none is left to chance.
    for (const tool of tools) {
      const families = [undefined, ...Object.keys(tool.inputSchema.properties ?? {})].flatMap((only) =>
        Object.values(nearMissesByKind(tool.inputSchema, only)),
      );
      const before = await fingerprint();
      for (const arbitrary of families) {
        for (const miss of fc.sample(arbitrary, { seed: SEED, numRuns: SWEEP_EACH }))
          await attempt({ tool, miss }, false);
      }
      expect(await fingerprint(), `${tool.name}: the sweep's refused calls wrote nothing`).toEqual(before);
    }
    // Then random mixes, shrunk to the smallest counterexample on a failure.
    const sample = fc
      .constantFrom(...tools)
      .chain((tool) => nearMissArgs(tool.inputSchema).map((miss) => ({ tool, miss })));
    await fc.assert(
      fc.asyncProperty(sample, (input) => attempt(input)),
      {
        seed: SEED,
        numRuns: MCP_NEAR_MISS_RUNS,
        endOnFailure: true,
      },
    );
    recordFigures(context, 'tool-argument fuzzing', { ...tally, badExecutions });
    // Every way of being wrong was tried.
    expect([...kinds.keys()].sort()).toEqual(
      [
        'deep_nesting',
        'extra_key',
        'huge_string',
        'invalid_utf16',
        'missing_required',
        'not_an_object',
        'out_of_bounds',
        'prototype_key',
        'wrong_type',
      ].sort(),
    );
    expect(badExecutions).toBe(0);
    expect(tally.misses).toEqual([]);
    // A prototype key left no trace on the shared prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 240_000);

  it('answers valid arguments with a result or a §12 code; write and high calls only become proposals', async (context) => {
    const { tally, check } = createTally();
    let badExecutions = 0;
    const sample = fc
      .constantFrom(...tools)
      .chain((tool) => validArgs(tool.inputSchema).map((args) => ({ tool, args })));
    await fc.assert(
      fc.asyncProperty(sample, async ({ tool, args }) => {
        const read = tool.annotations?.readOnlyHint === true;
        const before = await fingerprint(PROPOSAL_TABLES);
        const proposals = await proposalCount();
        const answer = await mcp.request('tools/call', { name: tool.name, arguments: args });
        const code = toolCode(answer);
        const structured = answer.result?.structuredContent as { approvalRequested?: boolean } | undefined;
        const label = `${tool.name} ${JSON.stringify(args).slice(0, 200)}: ${JSON.stringify(answer).slice(0, 300)}`;
        // A valid call is never a protocol fault nor an internal error.
        expect(answer.error, label).toBeUndefined();
        expect(code === undefined || (KNOWN_CODES.has(code) && code !== 'internal_error'), label).toBe(true);
        const added = (await proposalCount()) - proposals;
        if (read) {
          expect(added, label).toBe(0);
        } else {
          // Counted here: a refusal of a write/high call (e.g. a credential as a setting) is one.
          check(code !== undefined || structured?.approvalRequested === true, label);
          if (added !== (structured?.approvalRequested === true ? 1 : 0)) badExecutions += 1;
          // Nothing executed: only the proposal and its note were written.
          expect(await fingerprint(PROPOSAL_TABLES), label).toEqual(before);
        }
      }),
      { seed: SEED + 1, numRuns: MCP_VALID_RUNS, endOnFailure: true },
    );
    const pending = await hal.ai.store.listActionsByStatus('proposed');
    expect(pending.every((action) => action.status === 'proposed')).toBe(true);
    recordFigures(context, 'tool-argument fuzzing', { tried: 0, refused: 0, badExecutions });
    expect(badExecutions).toBe(0);
    expect(tally.misses).toEqual([]);
  }, 240_000);

  it("refuses a model's near-miss tool calls in a room turn: error results with their code, no proposal", async (context) => {
    const { tally, check } = createTally();
    const { body } = await hal.call('GET', '/ops/api/ai/rooms');
    const room = (body.rooms as Array<{ id: string; connectionId: string | null }>).find(
      (candidate) => candidate.connectionId === hal.ids.gpt,
    );
    expect(room).toBeDefined();
    const turns = fc.sample(
      fc.array(
        fc
          .constantFrom(...tools)
          .chain((tool) => nearMissArgs(tool.inputSchema).map((miss) => ({ tool, miss }))),
        { minLength: CALLS_PER_TURN, maxLength: CALLS_PER_TURN },
      ),
      { seed: SEED + 2, numRuns: ROOM_TURNS },
    );
    const proposals = await proposalCount();
    const before = await fingerprint(new Set([...PROPOSAL_TABLES, 'ai_turns']));
    for (const calls of turns) {
      const requestsBefore = hal.gpt.requests.length;
      hal.gpt.enqueue(
        { toolCalls: calls.map(({ tool, miss }) => ({ name: tool.name, input: miss.args })) },
        { text: 'Noted.' },
      );
      const posted = await hal.call('POST', `/ops/api/ai/rooms/${room?.id}/messages`, { text: 'run these' });
      expect(posted.status).toBeLessThan(300);
      await hal.ai.engine.idle();
      // The model's next request carries one tool result per call: each an error with its code.
      const followUp = hal.gpt.requests
        .slice(requestsBefore)
        .filter((request) => request.method === 'POST')[1];
      const toolMessages = (
        (followUp?.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? []
      )
        .filter((message) => message.role === 'tool')
        .slice(-calls.length);
      calls.forEach(({ tool, miss }, index) => {
        const content = toolMessages[index]?.content;
        const text = typeof content === 'string' ? content : JSON.stringify(content ?? null);
        check(text.includes('"validation_failed"'), `${tool.name} ${miss.kind}: ${text.slice(0, 200)}`);
      });
    }
    const badExecutions = (await proposalCount()) - proposals;
    recordFigures(context, 'tool-argument fuzzing', { ...tally, badExecutions });
    expect(await fingerprint(new Set([...PROPOSAL_TABLES, 'ai_turns']))).toEqual(before);
    expect(badExecutions).toBe(0);
    expect(tally.misses).toEqual([]);
    expect(tally.tried).toBe(ROOM_TURNS * CALLS_PER_TURN);
  }, 240_000);
});
