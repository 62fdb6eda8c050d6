import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeOpenAI, type FakeServer } from '@hal-ai/providers/testing';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomTestApp, eventually, type RoomTestApp } from '../../src/ai/rooms/room-app.test-support.js';
import { createHalWebAccess } from '../../src/ai/web/hal-web-access.js';
import { createApp } from '../../src/app.js';
import { LOCAL_SERVER_ID } from '../../src/domain/core/hal-core.js';
import { CHROMIUM, CHROMIUM_ARGS, ensurePanelBundle } from '../e2e/panel-browser.test-support.js';
import { type ServedApp, serveApp } from '../e2e/serve-app.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';
import {
  auditDom,
  corpusSlice,
  corpusText,
  type DomFinding,
  MARKER,
  XSS_CORPUS,
} from './hostile-xss-corpus.test-support.js';

// Issue #22, "XSS corpora in the panel and every page (real Chromium, with and without CSP)". One HAL runtime over a
// real SQLite file holds the hostile text everywhere an operator or a model can put some; two HTTP servers serve it,
// one with the Content-Security-Policy and one without (a test-only setting of createApp), so the sanitiser and the
// pages' escaping must hold alone. One Chromium, one context per server.

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`[hostile xss] skipped: no Chromium at ${CHROMIUM}`);

const ACTOR = 'operator:hostile-xss';

/** What one page visit showed: the marker calls and dialogs that ran, and what the DOM audit found live. */
interface Visit {
  url: string;
  ran: string[];
  findings: DomFinding[];
}

let t: RoomTestApp;
let debateFake: FakeServer;
const debateKey = randomBytes(18).toString('base64url');
let pages: http.Server;
let pagesPort: number;
let withPolicy: ServedApp;
let withoutPolicy: ServedApp;
let browser: Browser;
let serverId: string;
let steppedServerId: string;
let jobId: string;
const executions: Array<{ mode: string; id: string }> = [];

/** The page a linked URL returns: its title and text are hostile. */
function hostilePage(_request: http.IncomingMessage, response: http.ServerResponse) {
  response
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(
      `<title>xss-tag-web-title ${XSS_CORPUS[1]?.text.replace(/</g, '&lt;')}</title>` +
        `<main><p>${corpusText('xss-tag-web-text').replace(/</g, '&lt;')}</p></main>`,
    );
}

async function seed(): Promise<void> {
  const { core, audit } = t.deps;
  // Servers: the role (40 characters) and an isolation reason (500).
  const created = await core.servers.create(ACTOR, {
    name: 'xss-host',
    role: corpusSlice('xss-tag-role', 40, 1),
  });
  serverId = created.server.id;
  await core.servers.approve(ACTOR, { id: serverId });
  await core.servers.isolate(ACTOR, { id: serverId, reason: corpusSlice('xss-tag-isolate', 500, 3) });
  // A second, active server whose isolation the test walks through the three-step pages (impact, identifiers).
  const stepped = await core.servers.create(ACTOR, {
    name: 'xss-three-step',
    role: corpusSlice('xss-tag-3step-role', 40, 2),
  });
  steppedServerId = stepped.server.id;
  await core.servers.approve(ACTOR, { id: steppedServerId });
  // Incidents: one per payload as its title, the whole corpus as the detail of the first.
  for (const [index, payload] of XSS_CORPUS.entries()) {
    await core.incidents.open(ACTOR, {
      key: `xss.p${index}`,
      title: `xss-tag-incident ${payload.text}`,
      severity: index === 0 ? 'critical' : 'minor',
      ...(index === 0 ? { detail: corpusText('xss-tag-incident-detail') } : {}),
    });
  }
  await core.incidents.resolve(ACTOR, {
    id: (await core.incidents.list({ limit: 200 })).incidents.at(-1)?.id ?? '',
    resolution: corpusSlice('xss-tag-resolution', 2000, 5),
  });
  // Settings: the banner every page shows, and a plain string value.
  await core.settings.set(ACTOR, { key: 'maintenance.banner', value: corpusSlice('xss-tag-banner', 200, 6) });
  await core.settings.set(ACTOR, {
    key: 'mail.relay_host',
    value: corpusSlice('xss-tag-setting', 253, 9),
  });
  // A job whose log carries an operator's reason.
  const { job } = await core.deployments.health(ACTOR, { module: 'xss-module', serverId: LOCAL_SERVER_ID });
  jobId = job.id;
  await eventually(async () =>
    expect((await core.jobs.get({ id: jobId })).job.state).not.toMatch(/queued|running/),
  );
  // Step logs are what agents report (a remote agent posts its lines over HTTP): the column they all land in.
  await t.deps.db
    .updateTable('job_steps')
    .set({ log: corpusText('xss-tag-job-log') })
    .where('job_id', '=', jobId)
    .execute();
  // Audit details straight from the append-only log's own entry point.
  await audit.append({
    actor: 'system',
    action: 'hostile.xss',
    target: corpusSlice('xss-tag-audit-target', 200, 15),
    details: { note: corpusText('xss-tag-audit-detail') },
  });
  // Rooms: a direct room's title (the tab), an MCP client's name in the HAL note it causes.
  const rooms = (await t.call('GET', '/ops/api/ai/rooms')).body.rooms as Array<{
    id: string;
    connectionId: string | null;
  }>;
  const gptRoom = rooms.find((room) => room.connectionId === t.ids.gpt);
  expect(
    (
      await t.call('PATCH', `/ops/api/ai/rooms/${gptRoom?.id}`, {
        title: corpusSlice('xss-tag-room', 100, 2),
      })
    ).status,
  ).toBe(200);
  await t.deps.ai.engine.createExternalProposal({
    tool: 'hal_incident_open',
    args: { key: 'xss.mcp', title: corpusSlice('xss-tag-mcp-title', 200, 18), severity: 'minor' },
    source: 'mcp',
    clientName: corpusSlice('xss-tag-mcp-client', 120, 20),
  });
  // A rejection's reason becomes a HAL note too.
  const rejectable = await t.deps.ai.engine.createExternalProposal({
    tool: 'hal_incident_open',
    args: { key: 'xss.reject', title: 'xss-tag-rejected', severity: 'minor' },
    source: 'mcp',
    clientName: 'hostile',
  });
  expect(
    (
      await t.call('POST', `/ops/api/ai/actions/${rejectable.id}/reject`, {
        reason: corpusText('xss-tag-reject-reason'),
      })
    ).status,
  ).toBe(200);
  // A debate's topic (its tab): three connections of their own on a fake of their own, so the debate's calls never
  // take the answers scripted for the room's turns.
  const debaters: string[] = [];
  for (const name of ['Mod', 'Pro', 'Con']) {
    const response = await t.call('POST', '/ops/api/ai/connections', {
      provider: 'openai',
      name,
      auth: 'api_key',
      apiKey: debateKey,
      baseUrl: debateFake.baseUrl,
      model: 'gpt-debate',
    });
    expect(response.status).toBe(201);
    debaters.push(response.body.connection.id);
  }
  const debate = await t.call('POST', '/ops/api/ai/debates', {
    topic: corpusSlice('xss-tag-debate', 300, 8),
    moderatorId: debaters[0],
    debaterIds: debaters.slice(1),
    maxRounds: 1,
  });
  expect(debate.status).toBe(201);
  await t.call('POST', `/ops/api/ai/debates/${debate.body.debate.id}/stop`, {});
}

/** Posts the operator's hostile message while `page` watches the panel: the replies stream in live. */
async function hostileTurn(page: Page, mode: string): Promise<void> {
  const unified = ((await t.call('GET', '/ops/api/ai/rooms')).body.rooms as Array<{ id: string }>)[0]?.id;
  // GPT streams the corpus as markdown and calls a write tool with hostile arguments (a proposal card).
  t.gpt.enqueue({
    text: corpusText(`xss-tag-reply-${mode}`),
    chunks: 40,
    chunkDelayMs: 5,
    toolCall: {
      name: 'hal_incident_open',
      input: {
        key: `xss.model-${mode}`,
        title: corpusSlice(`xss-tag-proposal-${mode}`, 200, 7),
        severity: 'minor',
        detail: corpusText('xss-tag-proposal-detail'),
      },
    },
  });
  // Claude fails with a provider error whose type and message are hostile (shown as the failure, never as an answer).
  t.claude.enqueue({
    error: {
      status: 400,
      type: corpusSlice('xss-tag-provider-error', 120, 1),
      message: corpusSlice('xss-tag-provider-message', 400, 4),
    },
  });
  const link = `http://127.0.0.1:${pagesPort}/notes`;
  const posted = await t.call('POST', `/ops/api/ai/rooms/${unified}/messages`, {
    text: `${corpusText(`xss-tag-operator-${mode}`)}\n\nsee ${link}`,
  });
  expect(posted.status).toBe(202);
  await t.deps.ai.engine.idle();
  await page.waitForFunction(
    (tag) => document.querySelector('[data-hal-panel]')?.textContent?.includes(tag),
    `xss-tag-proposal-${mode}`,
    { timeout: 30_000 },
  );
}

/**
 * The three steps of a high action, as an operator walks them: isolating the active server with a hostile reason
 * typed into the form. Steps 1 (the impact) and 2 (the identifiers) are answers to a POST, so they are audited
 * where the form lands, not visited by URL.
 */
async function threeStepVisits(page: Page, mode: string, base: string): Promise<Visit[]> {
  await page.goto(`${base}/ops/servers`);
  const form = page.locator(`form[action="/ops/servers/${encodeURIComponent(steppedServerId)}/isolate"]`);
  await form.locator('[name=reason]').evaluate(
    (field, text) => {
      (field as HTMLInputElement).value = text;
    },
    corpusSlice('xss-tag-3step-reason', 500, 4),
  );
  const visits: Visit[] = [];
  let before = executions.length;
  await Promise.all([page.waitForURL(/isolate$/), form.locator('button[type=submit]').click()]);
  await page.locator('input[name=confirmImpact][type=checkbox]').waitFor();
  // The impact names the server; the hostile reason rides along in the step's carried fields, as a value.
  expect(await page.locator('input[name=reason]').first().inputValue()).toContain('xss-tag-3step-reason');
  visits.push(await auditHere(page, `${mode} three-step 1 (impact)`, before, ['xss-three-step']));
  before = executions.length;
  await page.locator('input[name=confirmImpact][type=checkbox]').check();
  await Promise.all([
    page.waitForLoadState('load'),
    page.locator('.confirm form button[type=submit]').first().click(),
  ]);
  await page.locator('code.identifier').first().waitFor();
  visits.push(await auditHere(page, `${mode} three-step 2 (identifiers)`, before, ['xss-three-step']));
  return visits;
}

/** Audits the page the browser is on: the hostile text named by `tags` must be shown, and nothing may run. */
async function auditHere(page: Page, label: string, before: number, tags: string[]): Promise<Visit> {
  const text = await page.evaluate(() => document.body.textContent ?? '');
  const missing = tags.filter((tag) => !text.includes(tag));
  if (missing.length > 0) throw new Error(`${label} does not show ${missing.join(', ')}`);
  await openEverything(page);
  const findings = await page.evaluate(auditDom);
  return { url: label, ran: executions.slice(before).map((entry) => entry.id), findings };
}

async function visit(page: Page, mode: string, url: string, tags: string[]): Promise<Visit> {
  const before = executions.length;
  await page.goto(url);
  if (new URL(url).pathname !== '/ops/login') {
    await page.waitForSelector('[data-hal-panel][data-ready=true]', { timeout: 30_000 });
  }
  // The hostile text is on the page (as text): the check below is about something that was really placed.
  const shown = await page
    .waitForFunction((wanted) => wanted.every((tag) => document.body.textContent?.includes(tag)), tags, {
      timeout: 15_000,
    })
    .then(
      () => true,
      () => false,
    );
  if (!shown) {
    const text = await page.evaluate(() => document.body.textContent ?? '');
    throw new Error(`${url} does not show ${tags.filter((tag) => !text.includes(tag)).join(', ')}`);
  }
  await openEverything(page);
  const findings = await page.evaluate(auditDom);
  return { url: `${mode} ${url}`, ran: executions.slice(before).map((entry) => entry.id), findings };
}

/** Opens every collapsed detail (tool calls, results, sources), so what they hold is rendered and audited too. */
async function openEverything(page: Page): Promise<void> {
  await page.evaluate(() => {
    for (const details of document.querySelectorAll('details')) details.open = true;
  });
  // Give handlers of just-inserted markup (an image's error, a toggle) their turn before the audit reads the DOM.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 250)));
}

async function newContext(mode: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.exposeFunction(MARKER, (id: string) => {
    executions.push({ mode, id: String(id) });
  });
  // A payload that calls alert/confirm/prompt instead of the marker is caught too.
  await context.addInitScript((marker) => {
    const hooked = window as unknown as Record<string, unknown>;
    for (const name of ['alert', 'confirm', 'prompt', 'print']) {
      hooked[name] = (...args: unknown[]) =>
        (hooked[marker] as (id: string) => void)(`${name}:${String(args[0])}`);
    }
  }, MARKER);
  const [name, value] = t.session.cookie.split('=');
  await context.addCookies([{ name: name ?? '', value: value ?? '', domain: '127.0.0.1', path: '/' }]);
  return context;
}

describe.skipIf(!hasChromium)('hostile: XSS corpora in the panel and every page, in Chromium', () => {
  beforeAll(async () => {
    ensurePanelBundle();
    pages = http.createServer(hostilePage);
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesPort = (pages.address() as AddressInfo).port;
    debateFake = await createFakeOpenAI({ apiKey: debateKey, models: [{ id: 'gpt-debate' }] });
    t = await createRoomTestApp({
      env: { HAL_WEB_ALLOW_PRIVATE: '1' },
      web: (deps) => createHalWebAccess(deps, { fetcherSettings: { allowedPorts: [pagesPort] } }),
    });
    await seed();
    withPolicy = await serveApp(createApp(t.deps));
    withoutPolicy = await serveApp(createApp(t.deps, { securityHeaders: { contentSecurityPolicy: false } }));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await withPolicy?.close();
    await withoutPolicy?.close();
    await t?.close();
    await debateFake?.close();
    pages?.closeAllConnections();
    await new Promise((resolve) => pages?.close(resolve));
  });

  it('the detector sees a payload that runs (a page without the sanitiser)', async () => {
    const context = await newContext('control');
    const page = await context.newPage();
    await page.setContent(`<p>control</p>${XSS_CORPUS[1]?.text}<a href="javascript:void 0">j</a>`);
    await page.waitForFunction(() => true);
    await eventually(() => expect(executions.some((entry) => entry.mode === 'control')).toBe(true));
    expect((await page.evaluate(auditDom)).map((finding) => finding.what)).toEqual(['onerror', 'href']);
    await context.close();
  });

  for (const mode of ['with CSP', 'without CSP'] as const) {
    it(`runs none of ${XSS_CORPUS.length} payloads in any place, ${mode}`, async (testContext) => {
      const served = mode === 'with CSP' ? withPolicy : withoutPolicy;
      const context = await newContext(mode);
      const page = await context.newPage();
      const policy = (await page.goto(`${served.url}/ops`))?.headers()['content-security-policy'];
      expect(policy !== undefined).toBe(mode === 'with CSP');
      await page.waitForSelector('[data-hal-panel][data-ready=true]', { timeout: 30_000 });
      const key = mode === 'with CSP' ? 'csp' : 'plain';
      await hostileTurn(page, key);
      const live: Visit = {
        url: `${mode} live panel`,
        ran: executions.filter((entry) => entry.mode === mode).map((entry) => entry.id),
        findings: await page.evaluate(auditDom),
      };
      const panelTags = [
        `xss-tag-operator-${key}`,
        `xss-tag-reply-${key}`,
        `xss-tag-proposal-${key}`,
        'xss-tag-mcp-client',
        'xss-tag-reject-reason',
        'xss-tag-room',
        'xss-tag-web-title',
        'xss-tag-banner',
        'xss-tag-debate',
      ];
      const hostile = encodeURIComponent(corpusSlice('xss-tag-query', 300, 0));
      const visits: Visit[] = [live];
      // The stored room after a reload: the same text rendered from storage, with every detail opened.
      visits.push(await visit(page, mode, `${served.url}/ops`, panelTags));
      visits.push(await visit(page, mode, `${served.url}/ops/servers`, ['xss-tag-role', 'xss-tag-isolate']));
      visits.push(await visit(page, mode, `${served.url}/ops/servers/${serverId}`, ['xss-tag-role']));
      visits.push(await visit(page, mode, `${served.url}/ops/incidents`, ['xss-tag-incident']));
      visits.push(await visit(page, mode, `${served.url}/ops/jobs`, []));
      visits.push(await visit(page, mode, `${served.url}/ops/jobs/${jobId}`, ['xss-tag-job-log']));
      visits.push(await visit(page, mode, `${served.url}/ops/releases`, []));
      visits.push(
        await visit(page, mode, `${served.url}/ops/audit?limit=200`, [
          'xss-tag-audit-target',
          'xss-tag-audit-detail',
        ]),
      );
      visits.push(await visit(page, mode, `${served.url}/ops/settings`, ['xss-tag-setting']));
      visits.push(await visit(page, mode, `${served.url}/ops/ai`, []));
      // Query parameters the pages read and echo.
      // A free-text `?notice=` is no longer shown at all (notices are signed catalogue codes: pages-notice.ts).
      visits.push(await visit(page, mode, `${served.url}/ops/servers?notice=${hostile}`, []));
      visits.push(await visit(page, mode, `${served.url}/ops/jobs?state=${hostile}&cursor=${hostile}`, []));
      visits.push(await visit(page, mode, `${served.url}/ops/audit?prefix=${hostile}&cursor=${hostile}`, []));
      visits.push(await visit(page, mode, `${served.url}/ops/servers/${hostile}`, []));
      visits.push(...(await threeStepVisits(page, mode, served.url)));
      await context.clearCookies();
      visits.push(await visit(page, mode, `${served.url}/ops/login?next=${hostile}`, []));
      await context.close();

      const { tally, check } = createTally();
      const ranIds = new Set(executions.filter((entry) => entry.mode === mode).map((entry) => entry.id));
      for (const place of visits) {
        for (const payload of XSS_CORPUS) {
          const found = place.findings.filter((finding) => finding.value.includes(payload.id));
          check(
            !place.ran.includes(payload.id) && found.length === 0,
            `${payload.id} at ${place.url}: ${JSON.stringify(found)}`,
          );
        }
        // A live finding that names no payload still counts (a handler or link that is not ours must not be there).
        for (const finding of place.findings) {
          if (!XSS_CORPUS.some((payload) => finding.value.includes(payload.id))) {
            check(false, `${place.url}: ${JSON.stringify(finding)}`);
          }
        }
      }
      recordFigures(testContext, `XSS corpora in Chromium, ${mode}`, { ...tally, scriptsRun: ranIds.size });
      expect([...ranIds]).toEqual([]);
      expect(tally.misses).toEqual([]);
    }, 300_000);
  }
});
