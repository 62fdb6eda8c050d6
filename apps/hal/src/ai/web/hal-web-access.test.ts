import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeRequest } from '@hal-ai/providers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRoomTestApp, type RoomTestApp } from '../rooms/room-app.test-support.js';
import { createHalWebAccess, hostIsAllowed, parseAllowedHosts } from './hal-web-access.js';

// The pages live on a loopback server; HAL reaches it only through the explicit test allowance
// (HAL_WEB_ALLOW_PRIVATE=1) and its port. Blocked cases use addresses refused even then, so no socket is opened.

let t: RoomTestApp;
let pages: http.Server;
let port: number;
let pageRequests: string[];

beforeEach(async () => {
  pageRequests = [];
  pages = http.createServer((request, response) => {
    pageRequests.push(request.url ?? '');
    if (request.url === '/notes') {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<title>Release notes</title><p>Version 2.4 fixes the mail queue.</p><script>evil()</script>');
    } else response.writeHead(404, { 'content-type': 'text/plain' }).end('missing');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  port = (pages.address() as AddressInfo).port;
  t = await createRoomTestApp({
    env: { HAL_WEB_ALLOW_PRIVATE: '1' },
    web: (deps) => createHalWebAccess(deps, { fetcherSettings: { allowedPorts: [port] } }),
  });
});

afterEach(async () => {
  await t.close();
  pages.closeAllConnections();
  await new Promise((resolve) => pages.close(resolve));
});

const ai = (p: string) => `/ops/api/ai${p}`;
const bodyText = (requests: FakeRequest[]) =>
  requests.filter((request) => request.method === 'POST').map((request) => JSON.stringify(request.body));

async function roomIds() {
  const { body } = await t.call('GET', ai('/rooms'));
  return { unified: body.rooms[0].id as string, gpt: body.rooms[1].id as string };
}

describe('links in an operator message', () => {
  it('become context blocks every addressed model receives as untrusted web content', async () => {
    const { unified } = await roomIds();
    t.gpt.enqueue({ text: 'GPT read it.' });
    t.claude.enqueue({ text: 'Claude read it.' });
    const url = `http://127.0.0.1:${port}/notes`;
    const posted = await t.call('POST', ai(`/rooms/${unified}/messages`), {
      text: `What changed in ${url}? Also http://127.0.0.1:${port}/missing.`,
    });
    expect(posted.status).toBe(202);
    const [, page, failed] = posted.body.message.content;
    expect(page).toMatchObject({
      type: 'context',
      source: 'web',
      url,
      finalUrl: url,
      title: 'Release notes',
      text: 'Version 2.4 fixes the mail queue.',
      truncated: false,
    });
    expect(failed).toMatchObject({ source: 'web', error: { code: 'web_fetch_failed' } });
    await t.ai.engine.idle();
    for (const sent of [bodyText(t.gpt.requests), bodyText(t.claude.requests)]) {
      expect(sent[0]).toContain('Version 2.4 fixes the mail queue.');
      expect(sent[0]).toContain('untrusted web content');
      expect(sent[0]).not.toContain('evil()');
    }
  });

  it('are not fetched when switched off globally, per operator, or in a slash command', async () => {
    const { gpt } = await roomIds();
    const url = `http://127.0.0.1:${port}/notes`;
    const contextOf = async (text: string) => {
      t.gpt.enqueue({ text: 'ok' });
      const posted = await t.call('POST', ai(`/rooms/${gpt}/messages`), { text });
      await t.ai.engine.idle();
      return posted.body.message.content.filter((block: { type: string }) => block.type === 'context');
    };
    expect((await t.call('PUT', ai('/prefs'), { webAutoFetch: false })).body.prefs.webAutoFetch).toBe(false);
    expect(await contextOf(`read ${url}`)).toEqual([]);
    await t.call('PUT', ai('/prefs'), { webAutoFetch: true });
    await t.deps.core?.settings.set('operator:test', { key: 'web.auto_fetch', value: false });
    expect(await contextOf(`read ${url}`)).toEqual([]);
    await t.deps.core?.settings.set('operator:test', { key: 'web.auto_fetch', value: null });
    expect(await contextOf(`/order summarise ${url}`)).toEqual([]);
    expect(pageRequests).toEqual([]);
    expect(await contextOf(`read ${url}`)).toHaveLength(1);
    expect(pageRequests).toEqual(['/notes']);
  });

  it('a blocked link is an error block and the turn goes on', async () => {
    const { gpt } = await roomIds();
    t.gpt.enqueue({ text: 'I could not read it.' });
    const posted = await t.call('POST', ai(`/rooms/${gpt}/messages`), {
      text: 'what is at http://169.254.169.254/latest/meta-data ?',
    });
    expect(posted.status).toBe(202);
    expect(posted.body.message.content[1]).toMatchObject({ error: { code: 'web_blocked' } });
    await t.ai.engine.idle();
    expect(bodyText(t.gpt.requests)[0]).toContain('could not be fetched: web_blocked');
  });
});

describe('tainted proposals', () => {
  it('a proposal made after reading a linked page needs confirmTainted to be approved', async () => {
    const { gpt } = await roomIds();
    t.gpt.enqueue(
      {
        toolCall: {
          name: 'hal_incident_open',
          input: { key: 'web.page', title: 'From the page', severity: 'minor' },
        },
      },
      { text: 'Opened.' },
    );
    await t.call('POST', ai(`/rooms/${gpt}/messages`), { text: `act on http://127.0.0.1:${port}/notes` });
    await t.ai.engine.idle();
    const [action] = (await t.call('GET', ai(`/rooms/${gpt}/messages?after=0`))).body.actions;
    expect(action).toMatchObject({ tool: 'hal_incident_open', status: 'proposed', tainted: true });
    const refused = await t.call('POST', ai(`/actions/${action.id}/approve`), {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'taint_confirmation_required',
      tool: 'hal_incident_open',
      args: { key: 'web.page', title: 'From the page', severity: 'minor' },
    });
    expect((await t.call('GET', '/ops/api/hal/incidents')).body.incidents).toHaveLength(0);
    const approved = await t.call('POST', ai(`/actions/${action.id}/approve`), { confirmTainted: true });
    expect(approved.status).toBe(200);
    expect(approved.body.action).toMatchObject({ status: 'executed', tainted: true });
  });

  it('a proposal without web content is not tainted and needs no extra confirmation', async () => {
    const { gpt } = await roomIds();
    t.gpt.enqueue(
      { toolCall: { name: 'hal_incident_open', input: { key: 'plain', title: 'Plain', severity: 'minor' } } },
      { text: 'Opened.' },
    );
    await t.call('POST', ai(`/rooms/${gpt}/messages`), { text: 'open an incident' });
    await t.ai.engine.idle();
    const [action] = (await t.call('GET', ai(`/rooms/${gpt}/messages?after=0`))).body.actions;
    expect(action.tainted).toBe(false);
    expect((await t.call('POST', ai(`/actions/${action.id}/approve`), {})).status).toBe(200);
  });
});

describe('the web_fetch tool', () => {
  it('is a proposal for other hosts, runs at once for allowed hosts, and refuses a blocked address outright', async () => {
    const { gpt } = await roomIds();
    const url = `http://127.0.0.1:${port}/notes`;
    t.gpt.enqueue({ toolCall: { name: 'web_fetch', input: { url } } });
    await t.call('POST', ai(`/rooms/${gpt}/messages`), { text: 'read the notes page' });
    await t.ai.engine.idle();
    const [proposal] = (await t.call('GET', ai(`/rooms/${gpt}/messages?after=0`))).body.actions;
    expect(proposal).toMatchObject({ tool: 'web_fetch', risk: 'write', args: { url }, status: 'proposed' });
    expect(pageRequests).toEqual([]);

    await t.deps.core?.settings.set('operator:test', {
      key: 'web.allowed_hosts',
      value: 'docs.example, 127.0.0.1',
    });
    t.gpt.enqueue(
      { toolCall: { name: 'web_fetch', input: { url } } },
      {
        toolCall: {
          name: 'hal_incident_open',
          input: { key: 'after.fetch', title: 'After fetch', severity: 'minor' },
        },
      },
    );
    await t.call('POST', ai(`/rooms/${gpt}/messages`), { text: 'read it now' });
    await t.ai.engine.idle();
    expect(pageRequests).toEqual(['/notes']);
    const sent = bodyText(t.gpt.requests);
    expect(sent.at(-1)).toContain('Version 2.4 fixes the mail queue.');
    const actions = (await t.call('GET', ai(`/rooms/${gpt}/messages?after=0`))).body.actions;
    // The proposal that followed the fetch in the same turn read web content.
    expect(actions.find((a: { tool: string }) => a.tool === 'hal_incident_open')).toMatchObject({
      tainted: true,
    });

    t.gpt.enqueue(
      { toolCall: { name: 'web_fetch', input: { url: 'http://169.254.169.254/latest/' } } },
      { text: 'No.' },
    );
    await t.call('POST', ai(`/rooms/${gpt}/messages`), { text: 'read the metadata' });
    await t.ai.engine.idle();
    expect((await t.call('GET', ai(`/rooms/${gpt}/messages?after=0`))).body.actions).toHaveLength(
      actions.length,
    );
    expect(bodyText(t.gpt.requests).at(-1)).toContain('web_blocked');
  });
});

describe('web.allowed_hosts', () => {
  it('matches exact hosts and *.subdomains, case-insensitively', () => {
    const allowed = parseAllowedHosts(' Docs.Example.com,*.wiki.example  other.');
    expect(allowed).toEqual(['docs.example.com', '*.wiki.example', 'other']);
    expect(hostIsAllowed('docs.example.com', allowed)).toBe(true);
    expect(hostIsAllowed('a.wiki.example', allowed)).toBe(true);
    expect(hostIsAllowed('wiki.example', allowed)).toBe(false);
    expect(hostIsAllowed('evilwiki.example', allowed)).toBe(false);
    expect(hostIsAllowed('docs.example.com.evil', allowed)).toBe(false);
  });
});
