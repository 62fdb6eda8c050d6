// The fake host of the panel benchmark (bench/run.mjs): a small server on 127.0.0.1 that answers the panel's HTTP
// contract (SPEC §13/§14 shapes: session, prefs, connections, rooms, messages, SSE events) and serves one or more
// panel bundles side by side, so a before and an after build are measured in one run, on the same machine load.
// Each bundle has its own URL (`/ops/assets/<name>/panel.js`): Chromium's code cache is keyed by URL, so two
// bundles never take turns evicting each other's cache entry.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const connection = {
  id: 'c1',
  name: 'claude',
  provider: 'anthropic',
  auth: 'api_key',
  baseUrl: null,
  model: 'model-a',
  models: ['model-a', 'model-b'],
  identity: { role: '', traits: '', instructions: '' },
  tools: { preset: 'all', enabled: [] },
  reasoning: 'off',
  status: 'active',
  lastCheckedAt: null,
  lastError: null,
  secret: { hasKey: true, hint: '…abcd' },
};
const unified = { id: 'u', kind: 'unified', title: '', fixed: true, connectionId: null, position: 0 };

/** A model reply like the ones operators get: paragraphs, a list, code, a table. */
function replyText(n) {
  return [
    `Server **web-${n}** looks healthy. Load is ${n % 7}.${n % 10} and the last deploy finished.`,
    '- jobs: 3 succeeded, 0 failed\n- incidents: none open\n- disk: 61% used',
    '```sh\nhal jobs list --state running\n```',
    '| metric | value |\n| --- | --- |\n| cpu | 23% |\n| memory | 4.1 GB |',
    `Next I would check the release notes of [v1.${n}](https://example.invalid/releases/${n}) before deploying.`,
  ].join('\n\n');
}

export function message(seq, role, content, extra = {}) {
  return {
    id: `m${seq}`,
    roomId: 'u',
    seq,
    role,
    connectionId: role === 'assistant' ? 'c1' : null,
    model: role === 'assistant' ? 'model-a' : null,
    content,
    status: 'complete',
    error: null,
    relayDepth: 0,
    relayedFrom: null,
    usage: role === 'assistant' ? { inputTokens: 900, outputTokens: 120 } : null,
    createdAt: new Date(1_700_000_000_000 + seq * 1000).toISOString(),
    ...extra,
  };
}

export function history(exchanges) {
  const messages = [];
  for (let n = 1; n <= exchanges; n += 1) {
    messages.push(message(messages.length + 1, 'user', [{ type: 'text', text: `@claude how is web-${n}?` }]));
    messages.push(
      message(messages.length + 1, 'assistant', [
        { type: 'tool-call', toolCallId: `t${n}`, toolName: 'hal_server_get', input: { id: `web-${n}` } },
        { type: 'text', text: replyText(n) },
      ]),
    );
  }
  return messages;
}

/** The chunks of the streamed reply (400: about 2 400 characters of markdown in paragraphs and a list). */
export function replyChunks(count) {
  const chunks = [];
  for (let index = 0; index < count; index += 1) {
    const paragraphEnd = index % 40 === 39;
    const listItem = index % 40 === 20;
    chunks.push(
      `${listItem ? '\n\n- ' : ''}word${index} ${index % 9 === 0 ? '**bold** ' : ''}${paragraphEnd ? '\n\n' : ''}`,
    );
  }
  return chunks;
}

/**
 * Starts the fake host. `bundles` maps a name to `{ js, css }` file paths; `/ops?bundle=<name>` is a console page
 * (with the console's stylesheet, `consoleCssPath`) that loads that bundle. `state.messages` is the room's history, `send(event, data)` writes one SSE frame to
 * every open event stream.
 */
export function startServer(bundles, consoleCssPath) {
  const consoleCss = readFileSync(consoleCssPath);
  const files = Object.fromEntries(
    Object.entries(bundles).map(([name, paths]) => [
      name,
      { js: readFileSync(paths.js), css: readFileSync(paths.css) },
    ]),
  );
  const state = { messages: [], streams: new Set() };
  // The console's own frame (apps/hal pages-layout.tsx and console.css): the panel sits in a sticky slot of the
  // viewport's height, so its message list scrolls and a streamed reply shows at its bottom. Without that frame
  // the list grows to the room's full height and a reply below the fold costs no style, layout or paint at all.
  const page = (
    name,
  ) => `<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>panel bench</title>
<link rel="stylesheet" href="/ops/assets/console.css">
<link rel="stylesheet" href="/ops/assets/${name}/panel.css"></head><body>
<header class="topbar"><a class="brand" href="/ops">HAL</a></header>
<div class="workspace"><main class="content" id="content"><h1>Overview</h1></main>
<aside id="hal-ai-panel" data-hal-panel data-page="/ops"></aside></div>
<script type="module" src="/ops/assets/${name}/panel.js"></script></body></html>`;
  const json = (response, body, status = 200) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/ops') {
      const name = url.searchParams.get('bundle') ?? '';
      if (!files[name]) return json(response, { error: { code: 'not_found', message: name } }, 404);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end(page(name));
    }
    if (path === '/ops/assets/console.css') {
      response.writeHead(200, { 'content-type': 'text/css' });
      return response.end(consoleCss);
    }
    const asset = /^\/ops\/assets\/([^/]+)\/panel\.(js|css)$/.exec(path);
    if (asset && files[asset[1]]) {
      response.writeHead(200, { 'content-type': asset[2] === 'js' ? 'text/javascript' : 'text/css' });
      return response.end(files[asset[1]][asset[2]]);
    }
    if (path === '/ops/api/session')
      return json(response, {
        operator: { id: 'o1', username: 'admin' },
        csrfToken: 'bench',
        recentAuthUntil: 0,
      });
    if (path === '/ops/api/ai/prefs')
      return json(response, { prefs: { panelOpen: true, panelWidth: 480, webAutoFetch: true } });
    if (path === '/ops/api/ai/connections')
      return json(response, { connections: [connection], providers: [], callbackUrl: '' });
    if (path === '/ops/api/ai/rooms') return json(response, { rooms: [unified] });
    if (path === '/ops/api/ai/commands') return json(response, { commands: [] });
    if (path === '/ops/api/ai/rooms/u/messages') {
      const after = Number(url.searchParams.get('after') ?? 0);
      return json(response, {
        messages: state.messages.filter((item) => item.seq > after),
        pending: 0,
        actions: [],
      });
    }
    if (path === '/ops/api/ai/rooms/u/events') {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      response.write(': open\n\n');
      state.streams.add(response);
      request.on('close', () => state.streams.delete(response));
      return;
    }
    json(response, { error: { code: 'not_found', message: path } }, 404);
  });
  let eventId = 0;
  const send = (event, data) => {
    eventId += 1;
    const frame = `event: ${event}\nid: ${eventId}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const stream of state.streams) stream.write(frame);
  };
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, state, send, close: () => server.close() });
    });
  });
}
