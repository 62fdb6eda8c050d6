import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concludingVerdict } from '../../src/ai/debates/debate-script.test-support.js';
import {
  createRoomTestApp,
  eventually,
  type RoomTestApp,
  testConnectionBody,
} from '../../src/ai/rooms/room-app.test-support.js';
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

/** A file's bytes read as single-byte text and as UTF-16LE text (both alignments), so every form can be found. */
function fileTexts(file: string): string {
  const bytes = fs.readFileSync(file);
  return [bytes.toString('latin1'), bytes.toString('utf16le'), bytes.subarray(1).toString('utf16le')].join(
    '\n',
  );
}

let t: RoomTestApp;
let moderatorId: string;
let secret: string;

beforeAll(async () => {
  t = await createRoomTestApp();
  // A vault secret of this run, with characters URL-encoding changes, held like any stored credential.
  secret = `${randomBytes(18).toString('base64url')}+/${randomBytes(6).toString('hex')}`;
  await t.deps.vault.set('hostile:canary', secret);
  const created = await t.call(
    'POST',
    '/ops/api/ai/connections',
    testConnectionBody('Moderator', 'openai', t.gpt.baseUrl, t.keys.gpt, 'gpt-test'),
  );
  expect(created.status).toBe(201);
  moderatorId = created.body.connection.id;
});
afterAll(async () => {
  await t.close();
});

describe('hostile: secrets canaries in the exports', () => {
  it('a vault secret pasted into a debate or echoed by its models is in neither the Markdown export nor a DR snapshot', async (context) => {
    const forms = spellingsOf(secret);
    const echo = Object.values(forms).join(' | ');
    // Two rounds that conclude (the moderator is on the OpenAI fake, as GPT is); every model answer echoes the
    // secret in each spelling: briefs, replies, the working document, a verdict's reason and the conclusion.
    // The first brief waits, so the operator's words are taken while the first round is still in flight.
    t.gpt.enqueue(
      { text: `Claude, answer this: ${echo}`, firstByteDelayMs: 1500 },
      { text: `# Working document\n\n- agreed: ${echo}` },
      { text: concludingVerdict({ reason: `both echo ${forms.plain}`, agreed: [forms.base64] }) },
      { text: `GPT, do you agree? ${forms.hex}` },
      { text: `GPT: I agree, ${echo}` },
      { text: `# Working document\n\n- agreed: ${echo}\n- agreed: ${forms.url}` },
      { text: `\`\`\`json\n${concludingVerdict({ reason: `still ${forms['utf-16 hex']}` })}\n\`\`\`` },
      { text: `Conclusion: ${echo}` },
    );
    t.claude.enqueue({ text: `Claude: the key is ${echo}` });
    const created = await t.call('POST', '/ops/api/ai/debates', {
      topic: `keep ${forms.plain} safe`,
      moderatorId,
      debaterIds: [t.ids.claude, t.ids.gpt],
    });
    expect(created.status).toBe(201);
    const debateId: string = created.body.debate.id;
    const injected = await t.call('POST', `/ops/api/ai/debates/${debateId}/inject`, {
      text: `operator pastes: ${echo}`,
    });
    expect(injected.status).toBe(200);
    await eventually(async () => {
      const { body } = await t.call('GET', `/ops/api/ai/debates/${debateId}`);
      expect(body.debate.status).toBe('concluded');
    }, 30_000);
    await t.ai.debates.idle();

    const exported = await t.request(`/ops/api/ai/debates/${debateId}/export`);
    expect(exported.status).toBe(200);
    const markdown = await exported.text();
    // The file name carries the slug, which is built from the topic.
    const answers = [
      exported.headers.get('content-disposition') ?? '',
      JSON.stringify((await t.call('GET', `/ops/api/ai/debates/${debateId}`)).body),
      JSON.stringify((await t.call('GET', `/ops/api/ai/rooms/${created.body.debate.roomId}/messages`)).body),
    ];
    // The export is the whole debate: the conclusion and both rounds are there, only the secret is not.
    expect(markdown).toContain('## Conclusion');
    expect(markdown).toContain('Claude: the key is');

    const { snapshot } = await t.deps.core.dr.snapshot('operator:hostile');
    expect(snapshot.verified).toBe('ok');
    const drDir = path.join(t.dataDir, 'dr');
    const snapshotFiles = fs
      .readdirSync(drDir)
      .filter((name) => name.startsWith(snapshot.file))
      .map((name) => path.join(drDir, name));
    expect(snapshotFiles.length).toBeGreaterThanOrEqual(1);
    const prompts = [...t.gpt.requests, ...t.claude.requests]
      .filter((request) => /\/(chat\/completions|messages)$/.test(request.path))
      .map((request) => JSON.stringify(request.body));
    expect(prompts.length).toBeGreaterThanOrEqual(8);

    const places: Record<string, string> = {
      'debate Markdown export': markdown,
      'debate answers and the export file name': answers.join('\n'),
      // The snapshot and any -wal/-journal beside it (a snapshot is a whole database file).
      'DR snapshot files': snapshotFiles.map(fileTexts).join('\n'),
      'live database + WAL': [t.dbFile, `${t.dbFile}-wal`]
        .filter((file) => fs.existsSync(file))
        .map(fileTexts)
        .join('\n'),
      'debate model-bound prompts': prompts.join('\n'),
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
});
