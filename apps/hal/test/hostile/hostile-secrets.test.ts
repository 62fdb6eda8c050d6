import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectionsTestApp,
  createConnectionsTestApp,
} from '../../src/ai/connections/connection-fakes.test-support.js';
import type { TestSession } from '../foundation.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

/** The spellings a secret is looked for in, written here independently of the redactor. */
function spellingsOf(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, 'utf8');
  const wide = Buffer.from(secret, 'utf16le');
  return {
    plain: secret,
    base64: bytes.toString('base64'),
    hex: bytes.toString('hex'),
    url: encodeURIComponent(secret),
    'utf-16 base64': wide.toString('base64'),
    'utf-16 hex': wide.toString('hex'),
  };
}

let t: ConnectionsTestApp;
let openai: FakeServer;
let session: TestSession;
let apiKey: string;
let connectionId: string;

beforeAll(async () => {
  // A key with characters that URL-encoding changes, generated for this run.
  apiKey = `${randomBytes(18).toString('base64url')}+/${randomBytes(6).toString('hex')}`;
  openai = await createFakeOpenAI({ apiKey, models: [{ id: 'gpt-canary' }] });
  t = await createConnectionsTestApp({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
  session = await t.login();
  const created = await t.call('POST', '/ops/api/ai/connections', session, {
    provider: 'openai',
    name: 'canary',
    auth: 'api_key',
    apiKey,
    baseUrl: openai.baseUrl,
    model: 'gpt-canary',
  });
  expect(created.status).toBe(201);
  connectionId = created.body.connection.id;
});
afterAll(async () => {
  await t.close();
  await openai.close();
});

describe('hostile: secrets canaries', () => {
  it("the key echoed by a streaming model is in no frame of the room's event stream, nor in its joined deltas", async (context) => {
    const forms = spellingsOf(apiKey);
    const rooms = await t.call('GET', '/ops/api/ai/rooms', session);
    const room = rooms.body.rooms.find(
      (entry: { connectionId: string | null }) => entry.connectionId === connectionId,
    );
    // Read the live stream from before the turn starts, as the panel does.
    const events = await t.request(`/ops/api/ai/rooms/${room.id}/events`, { session });
    expect(events.status).toBe(200);
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let raw = '';
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        raw += decoder.decode(value, { stream: true });
      }
    })().catch(() => undefined);
    // Many small chunks, so a secret crosses delta boundaries (a check on single frames alone would miss that).
    openai.enqueue({ text: `Streaming it back: ${Object.values(forms).join(' | ')} end`, chunks: 60 });
    const posted = await t.call('POST', `/ops/api/ai/rooms/${room.id}/messages`, session, {
      text: `echo my key back: ${forms.plain}`,
    });
    expect(posted.status).toBe(202);
    await t.deps.ai.engine.idle();
    // Let the last frames (held at most one write interval) leave before the stream is cut.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await reader.cancel();
    await reading;
    const joined = new Map<string, string>();
    for (const frame of raw.split('\n\n')) {
      const lines = frame.split('\n');
      const name = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (name !== 'delta' || !data.startsWith('{')) continue;
      const delta = JSON.parse(data) as { messageId?: string; text?: string };
      if (delta.messageId && typeof delta.text === 'string')
        joined.set(delta.messageId, (joined.get(delta.messageId) ?? '') + delta.text);
    }
    expect(joined.size).toBeGreaterThanOrEqual(1);
    expect([...joined.values()].join('')).toContain('end');
    const places: Record<string, string> = {
      'event stream frames': raw,
      'joined streamed deltas': [...joined.values()].join('\n'),
    };
    const { tally, check } = createTally();
    let leaked = 0;
    for (const [place, text] of Object.entries(places)) {
      for (const [spelling, form] of Object.entries(forms)) {
        const found = text.includes(form);
        if (found) leaked += 1;
        check(!found, `${spelling} in ${place}`);
      }
    }
    recordFigures(context, 'secrets canaries', { ...tally, secretsLeaked: leaked });
    expect(tally.misses).toEqual([]);
  });

  it('a stored API key pasted by the operator or echoed by the model is in no row, log, answer, audit or prompt', async (context) => {
    const forms = spellingsOf(apiKey);
    const rooms = await t.call('GET', '/ops/api/ai/rooms', session);
    const room = rooms.body.rooms.find(
      (entry: { connectionId: string | null }) => entry.connectionId === connectionId,
    );
    // The model echoes the key in every spelling, in its text and in a proposal's arguments.
    openai.enqueue(
      {
        text: `Here it is: ${Object.values(forms).join(' | ')}`,
        toolCall: {
          name: 'hal_incident_open',
          input: { key: 'leak.check', title: `key ${forms.hex}`, severity: 'minor', detail: forms.base64 },
        },
      },
      { text: 'done' },
    );
    const answers: string[] = [];
    const posted = await t.call('POST', `/ops/api/ai/rooms/${room.id}/messages`, session, {
      text: `my key, in many spellings: ${Object.values(forms).join(' ; ')}`,
    });
    expect(posted.status).toBe(202);
    answers.push(posted.text);
    await t.deps.ai.engine.idle();
    answers.push((await t.call('GET', `/ops/api/ai/rooms/${room.id}/messages`, session)).text);
    answers.push((await t.call('GET', '/ops/api/ai/connections', session)).text);
    answers.push((await t.call('GET', '/ops/api/hal/audit?limit=200', session)).text);
    const prompts = openai.requests
      .filter((request) => request.path.endsWith('/chat/completions'))
      .map((request) => JSON.stringify(request.body));
    expect(prompts.length).toBeGreaterThanOrEqual(1);
    const places: Record<string, string> = {
      'database + WAL + SHM': [t.dbFile, `${t.dbFile}-wal`, `${t.dbFile}-shm`]
        .filter((file) => fs.existsSync(file))
        .map((file) => fs.readFileSync(file).toString('latin1'))
        .join('\n'),
      'database as UTF-16': [t.dbFile, `${t.dbFile}-wal`]
        .filter((file) => fs.existsSync(file))
        .map((file) => fs.readFileSync(file).toString('utf16le'))
        .join('\n'),
      logs: t.logLines.join('\n'),
      responses: answers.join('\n'),
      'model-bound prompts': prompts.join('\n'),
    };
    const { tally, check } = createTally();
    let leaked = 0;
    for (const [place, text] of Object.entries(places)) {
      for (const [spelling, form] of Object.entries(forms)) {
        const found = text.includes(form);
        if (found) leaked += 1;
        check(!found, `${spelling} in ${place}`);
      }
    }
    // The key is still usable: the provider received it as the credential (the one place it belongs).
    expect(openai.requests.some((request) => request.headers.authorization === `Bearer ${apiKey}`)).toBe(
      true,
    );
    // Masked, not dropped: the operator's message, the model's reply and its proposal are all still there.
    const stored = (await t.call('GET', `/ops/api/ai/rooms/${room.id}/messages`, session)).text;
    const messagesLost = ['my key, in many spellings', 'Here it is', 'leak.check'].filter(
      (marker) => !stored.includes(marker),
    ).length;
    recordFigures(context, 'secrets canaries', { ...tally, secretsLeaked: leaked, messagesLost });
    expect(tally.misses).toEqual([]);
    expect(messagesLost).toBe(0);
  });

  it('a credential or confidential key through hal_config_set / hal_settings_set is refused before any proposal', async (context) => {
    const { tally, check } = createTally();
    const before = (await t.deps.ai.store.listActionsByStatus('proposed')).length;
    const attempts: Array<{ tool: string; args: Record<string, unknown> }> = [
      { tool: 'hal_config_set', args: { key: 'alerts.webhook_secret', value: 'something-harmless' } },
      {
        tool: 'hal_config_set',
        args: { key: 'mail.relay_host', value: `sk-${randomBytes(20).toString('hex')}` },
      },
      {
        tool: 'hal_config_set',
        args: {
          key: 'mail.relay_host',
          value: `-----BEGIN PRIVATE KEY-----\n${randomBytes(40).toString('base64')}`,
        },
      },
      {
        tool: 'hal_settings_set',
        args: { key: 'mail.relay_host', serverId: 'local', value: `ghp_${randomBytes(18).toString('hex')}` },
      },
    ];
    for (const attempt of attempts) {
      const refused = await t.deps.ai.engine
        .createExternalProposal({ ...attempt, source: 'mcp', clientName: 'hostile' })
        .then(
          () => 'proposed',
          (error: { code?: string }) => error.code,
        );
      check(refused === 'secret_not_allowed', `${attempt.tool} ${String(attempt.args.key)}: ${refused}`);
    }
    const proposals = (await t.deps.ai.store.listActionsByStatus('proposed')).length - before;
    recordFigures(context, 'secrets through settings tools', { ...tally, badExecutions: proposals });
    expect(tally.misses).toEqual([]);
    expect(proposals).toBe(0);
  });
});
