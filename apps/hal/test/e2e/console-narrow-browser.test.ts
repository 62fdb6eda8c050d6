import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  createFakeOpenAI,
  type FakeRequest,
  type FakeServer,
  type FakeStep,
} from '@hal-ai/providers/testing';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRoomTestApp, eventually, type RoomTestApp } from '../../src/ai/rooms/room-app.test-support.js';
import { createApp } from '../../src/app.js';
import { makeArtifact } from '../../src/domain/core/core.test-support.js';
import { LOCAL_SERVER_ID } from '../../src/domain/core/hal-core.js';
import { type LayoutProblems, layoutProblems } from './console-narrow-layout.test-support.js';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM,
  CHROMIUM_ARGS,
  ensurePanelBundle,
  SCREENSHOT_DIR,
} from './panel-browser.test-support.js';
import { type ServedApp, serveApp } from './serve-app.test-support.js';

// Issue #16 point 3 ("cards never break words or overflow") and its "Done when" screenshots, as a sweep: every
// console page and the panel (a proposal card with long arguments and its impact, a debate room), at 390 and
// 1000 px, in Korean and in English, over realistic long data put in place through the same core functions the
// console uses (long host names, URLs, Korean text, job errors, a release file name). Each page must not scroll
// sideways, no box may let its content spill out unless it scrolls by design, no word may be cut in two where it
// fits, and at 390 px every tap target is at least 24 px. One HAL runtime over a real SQLite file, served on
// 127.0.0.1; one Chromium.

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`[console narrow] skipped: no Chromium at ${CHROMIUM}`);

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

const ACTOR = 'operator:console-narrow';

/** Host names at the schema's limit (63 characters, one "word" with no space to break at). */
const LONG_SERVER = 'payments-settlement-backend-primary-seoul-rack07-node1.internal';
const LONG_HOST_2 = 'customer-notification-mailer-secondary-busan-rack03.internal';
/** Module and version names at their limits (64 characters). */
const LONG_MODULE = 'customer-portal-frontend-static-assets-bundle-with-localisation';
const LONG_VERSION = '2026.12.02-rc.17-build.4815162342-commit.9f86d081884c7d659a2feaa';
const KOREAN_ROLE = '결제 정산 백엔드 애플리케이션 서버 (주 데이터센터)';
const KOREAN_REASON =
  '디스크 컨트롤러에서 반복적인 입출력 오류가 발생하여 데이터 손상 위험이 있으므로 점검이 끝날 때까지 배포와 에이전트 접속을 차단합니다. ' +
  '담당자: 인프라 운영팀 야간 당직자, 관련 티켓 https://tickets.internal.example/projects/INFRA/issues/INFRA-48151623/comments?focus=latest';
const KOREAN_INCIDENT =
  '결제 정산 배치가 예정된 시간 안에 끝나지 않아 익일 정산 보고서 생성이 지연되고 있습니다 (영향 범위: 모든 가맹점)';
const LONG_URL =
  'https://wiki.operations.internal.example/ko/runbooks/payments/settlement/backend/disaster-recovery-procedures-2026';
/** The name of the artifact an operator picks for the upload form (an input shows it). */
const LONG_FILE_NAME = `${LONG_MODULE}-${LONG_VERSION}-linux-x86_64-production-signed.tar.gz`;

/** The debate's three models on one fake: debaters argue in long Korean, the moderator ends after one round. */
function debateScript(request: FakeRequest): FakeStep {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));
  const system = messages
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map((message) => text(message.content))
    .join('\n');
  const last = text([...messages].reverse().find((message) => message.role === 'user')?.content);
  if (system.includes('# Your part: a debater')) {
    return {
      text: `${KOREAN_REASON}\n\n배포 파이프라인: \`${LONG_MODULE}@${LONG_VERSION}\` → ${LONG_SERVER}`,
    };
  }
  if (last.startsWith('Task: brief the next speaker.')) {
    const speaker = /by turn it would be ([^)]+)\)/.exec(last)?.[1] ?? 'Pro';
    return { text: `SPEAKER: ${speaker}\n${speaker}, ${KOREAN_INCIDENT}` };
  }
  if (last.startsWith('Task: merge the working document.')) {
    return { text: `# 작업 문서\n\n- ${KOREAN_INCIDENT}\n- ${LONG_URL}` };
  }
  if (last.startsWith('Task: judge this round.')) {
    return {
      text: JSON.stringify({
        agreed: [KOREAN_INCIDENT],
        disputed: [LONG_SERVER],
        decision: 'continue',
        agreement_level: 'partial',
        reason: KOREAN_REASON.slice(0, 200),
      }),
    };
  }
  return { text: KOREAN_INCIDENT };
}

let t: RoomTestApp;
let debateFake: FakeServer;
let served: ServedApp;
let browser: Browser;
const ids: Record<string, string> = {};

/** Everything the pages show, put in place through the core functions and the console's JSON API. */
async function seed(): Promise<void> {
  const { core, audit } = t.deps;
  const created = await core.servers.create(ACTOR, { name: LONG_SERVER, role: KOREAN_ROLE });
  ids.server = created.server.id;
  await core.servers.approve(ACTOR, { id: ids.server });
  const second = await core.servers.create(ACTOR, { name: LONG_HOST_2, role: 'mail relay (secondary)' });
  await core.servers.approve(ACTOR, { id: second.server.id });
  await core.servers.isolate(ACTOR, { id: second.server.id, reason: KOREAN_REASON });

  // A release with names at their limits, approved, so the deploy form shows too.
  const artifact = await makeArtifact(t.dataDir, LONG_MODULE, LONG_VERSION);
  const { release } = await core.releases.register(ACTOR, {
    module: LONG_MODULE,
    version: LONG_VERSION,
    sha256: artifact.sha256,
    artifact: artifact.file,
  });
  await core.releases.approve(ACTOR, { id: release.id });

  // A job that fails for real: HAL's own agent has no such module, and says so with its long path.
  const { job } = await core.deployments.health(ACTOR, { module: LONG_MODULE, serverId: LOCAL_SERVER_ID });
  ids.job = job.id;
  await eventually(
    async () => expect((await core.jobs.get({ id: job.id })).job.state).toBe('failed'),
    20_000,
  );

  for (const [index, severity] of (['critical', 'major', 'minor'] as const).entries()) {
    await core.incidents.open(ACTOR, {
      key: `payments.settlement-delay.${index}`,
      title: `${KOREAN_INCIDENT} ${LONG_SERVER}`.slice(0, 200),
      severity,
      detail: `${KOREAN_REASON}\n${LONG_URL}`,
    });
  }
  await core.settings.set(ACTOR, { key: 'wiki.url', value: LONG_URL });
  await core.settings.set(ACTOR, { key: 'mail.relay_host', value: `${LONG_HOST_2}.relay.example` });
  await core.settings.set(ACTOR, {
    key: 'maintenance.banner',
    value: `${KOREAN_INCIDENT}`.slice(0, 200),
  });
  await audit.append({
    actor: 'system',
    action: 'console.narrow-check',
    target: `${LONG_SERVER}/${LONG_MODULE}`,
    details: { url: LONG_URL, note: KOREAN_REASON },
  });

  // /ops/ai: an API-key card (GPT, Claude), an OAuth card with long endpoints, and a CLI card.
  const oauth = await t.call('POST', '/ops/api/ai/connections', {
    provider: 'other',
    name: 'enterprise-gateway-seoul-primary',
    auth: 'oauth',
    baseUrl: `${t.gpt.baseUrl}`,
    model: 'gpt-test',
    oauth: {
      preset: 'custom',
      authorizeUrl: `${t.gpt.url}/oauth2/v2.0/authorize/tenants/3f2504e0-4f89-11d3-9a0c-0305e82c3301`,
      tokenUrl: `${t.gpt.url}/oauth2/v2.0/token/tenants/3f2504e0-4f89-11d3-9a0c-0305e82c3301`,
      clientId: `hal-console-${randomBytes(16).toString('hex')}`,
      clientSecret: randomBytes(18).toString('base64url'),
      scopes: ['models.read', 'chat.completions.write', 'offline_access'],
    },
  });
  expect(oauth.status).toBe(201);
  const cli = await t.call('POST', '/ops/api/ai/connections', {
    provider: 'local-cli',
    name: 'claude-code-on-this-host',
    auth: 'cli',
    cli: { tool: 'claude' },
  });
  expect(cli.status).toBe(201);

  // The unified room: a proposal to isolate the long-named server, with a long Korean reason (high: it shows
  // the impact HAL computes).
  const rooms = (await t.call('GET', '/ops/api/ai/rooms')).body.rooms as Array<{ id: string }>;
  ids.unified = rooms[0]?.id ?? '';
  t.gpt.enqueue({
    text: `${KOREAN_INCIDENT}\n\n\`${LONG_SERVER}\` 서버를 격리할 것을 제안합니다: ${LONG_URL}`,
    toolCall: { name: 'hal_server_isolate', input: { id: ids.server, reason: KOREAN_REASON } },
  });
  const posted = await t.call('POST', `/ops/api/ai/rooms/${ids.unified}/messages`, {
    text: `@GPT ${LONG_SERVER} 상태를 확인하고 필요하면 격리해 주세요. ${KOREAN_INCIDENT}`,
  });
  expect(posted.status).toBe(202);
  await t.deps.ai.engine.idle();

  // A debate room of its own models, with a long Korean topic, run to its end.
  const debaters: string[] = [];
  for (const name of ['진행자-moderator', 'Pro-찬성측-debater', 'Con-반대측-debater']) {
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
    topic: `${KOREAN_INCIDENT} — ${LONG_SERVER} 격리 여부`,
    moderatorId: debaters[0],
    debaterIds: debaters.slice(1),
    maxRounds: 1,
  });
  expect(debate.status).toBe(201);
  ids.debate = debate.body.debate.id;
  await eventually(async () => {
    const state = (await t.call('GET', `/ops/api/ai/debates/${ids.debate}`)).body.debate.status;
    expect(state).not.toMatch(/^(running|starting)$/);
  }, 30_000);
}

const debateKey = randomBytes(18).toString('base64url');

/** A browser context at `width`, signed in as the test's operator (or not, for the login page). */
async function openContext(width: number, locale: string, signedIn = true): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    extraHTTPHeaders: { 'accept-language': locale === 'ko' ? 'ko-KR,ko;q=0.9' : 'en-US,en;q=0.9' },
  });
  if (signedIn) {
    const [name, value] = t.session.cookie.split('=');
    await context.addCookies([{ name: name ?? '', value: value ?? '', domain: '127.0.0.1', path: '/' }]);
  }
  return context;
}

/** Checks the page as it is now and saves its screenshot; returns what was wrong, by page. */
async function check(page: Page, name: string, width: number, locale: string): Promise<LayoutProblems> {
  const found = await layoutProblems(page, { tapTargets: width <= 400 });
  await page.screenshot({
    path: path.join(SCREENSHOT_DIR, `narrow-${name}-${width}-${locale}.png`),
    fullPage: true,
  });
  return { page: `${name} @${width} ${locale}`, ...found };
}

async function panelReady(page: Page): Promise<void> {
  await page.waitForSelector('[data-hal-panel][data-ready=true]', { timeout: 30_000 });
}

describe.skipIf(!hasChromium)(
  'every console page at 390 and 1000 px, in Korean and English (Chromium)',
  () => {
    beforeAll(async () => {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      ensurePanelBundle();
      debateFake = await createFakeOpenAI({
        apiKey: debateKey,
        models: [{ id: 'gpt-debate' }],
        respond: debateScript,
      });
      t = await createRoomTestApp();
      await seed();
      served = await serveApp(createApp(t.deps));
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    }, 300_000);

    afterAll(async () => {
      await browser?.close().catch(() => undefined);
      await served?.close();
      await t?.close();
      await debateFake?.close();
    });

    // The language is the operator's saved preference: one language at a time, both widths of it at once (each
    // width in its own browser context, so the sweep waits on two pages together rather than on one).
    for (const locale of ['ko', 'en'] as const) {
      describe(`in ${locale}`, () => {
        beforeAll(async () => {
          expect((await t.call('PUT', '/ops/api/ai/prefs', { locale, panelOpen: true })).status).toBe(200);
        });

        for (const width of [390, 1000]) {
          it.concurrent(`keeps every page whole at ${width} px in ${locale}`, async ({ expect }) => {
            const results: LayoutProblems[] = [];
            const login = await openContext(width, locale, false);
            const loginPage = await login.newPage();
            await loginPage.goto(`${served.url}/ops/login`);
            results.push(await check(loginPage, 'login', width, locale));
            await login.close();

            const context = await openContext(width, locale);
            const page = await context.newPage();
            const pages: Array<[string, string]> = [
              ['overview', '/ops'],
              ['servers', '/ops/servers'],
              ['server', `/ops/servers/${encodeURIComponent(ids.server ?? '')}`],
              ['jobs', '/ops/jobs'],
              ['job', `/ops/jobs/${encodeURIComponent(ids.job ?? '')}`],
              ['releases', '/ops/releases'],
              ['incidents', '/ops/incidents'],
              ['settings', '/ops/settings'],
              ['audit', '/ops/audit'],
            ];
            for (const [name, route] of pages) {
              await page.goto(`${served.url}${route}`);
              await panelReady(page);
              if (name === 'releases') {
                await page.locator('input[type=file][name=artifact]').setInputFiles({
                  name: LONG_FILE_NAME,
                  mimeType: 'application/gzip',
                  buffer: Buffer.from('not uploaded'),
                });
              }
              results.push(await check(page, name, width, locale));
            }

            await page.goto(`${served.url}/ops/ai`);
            await page.waitForSelector('[data-hal-connections][data-ready=true]', { timeout: 30_000 });
            await page.waitForSelector('.hal-cli-list[data-ready=true]', { timeout: 30_000 });
            await expect(page.locator('.hal-conn').count()).resolves.toBeGreaterThanOrEqual(4);
            results.push(await check(page, 'ai', width, locale));

            // The three-step page of a high action: isolating the long-named server, step 1 (the impact) and 2.
            await page.goto(`${served.url}/ops/servers`);
            const isolate = page.locator(
              `form[action="/ops/servers/${encodeURIComponent(ids.server ?? '')}/isolate"]`,
            );
            await isolate.locator('[name=reason]').fill(KOREAN_REASON);
            await Promise.all([page.waitForURL(/isolate$/), isolate.locator('button[type=submit]').click()]);
            await page.locator('input[name=confirmImpact][type=checkbox]').waitFor();
            results.push(await check(page, 'three-step-1', width, locale));
            await page.locator('input[name=confirmImpact][type=checkbox]').check();
            await Promise.all([
              page.waitForLoadState('load'),
              page.locator('.confirm form button[type=submit]').first().click(),
            ]);
            await page.locator('code.identifier').first().waitFor();
            results.push(await check(page, 'three-step-2', width, locale));

            // The panel: the unified room with its proposal card (arguments and impact), then the debate room.
            await page.goto(`${served.url}/ops`);
            await panelReady(page);
            await page.locator('.hal-action').first().waitFor();
            await page.locator('.hal-action-impact').first().waitFor({ timeout: 15_000 });
            await page.locator('.hal-action').first().scrollIntoViewIfNeeded();
            results.push(await check(page, 'panel-proposal', width, locale));
            await page.locator('[role=tab]').last().click();
            await page.locator('.hal-debate-round').first().waitFor({ timeout: 15_000 });
            results.push(await check(page, 'panel-debate', width, locale));
            await context.close();

            const failing = results.filter(
              (result) =>
                result.overflow.length + result.spills.length + result.cut.length + result.small.length > 0,
            );
            fs.writeFileSync(
              path.join(SCREENSHOT_DIR, `narrow-problems-${width}-${locale}.json`),
              JSON.stringify(failing, null, 2),
            );
            expect(failing).toEqual([]);
          }, 240_000);
        }
      });
    }
  },
);
