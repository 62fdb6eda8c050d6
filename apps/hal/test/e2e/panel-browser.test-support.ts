import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { type HalProcess, signInOverHttp, startHalProcess } from '../hal-serve.test-support.js';
import { ensureWorkspaceBuilt } from '../workspace-build.test-support.js';

export { ensureBuilt } from '../hal-serve.test-support.js';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the browser suite writes its screenshots. */
export const SCREENSHOT_DIR = path.join(appDir, 'test-output/screenshots');

/** Debian's Chromium, which CI installs; the suite is skipped (with a message) without it. */
export const CHROMIUM = process.env.HAL_CHROMIUM ?? '/usr/bin/chromium';

/**
 * How long one browser test may take (the suite's default is 30 s); each browser file sets it with
 * `vi.setConfig`. A test drives Chromium, a spawned `hal serve` and scrypt re-authentications on the same cores as
 * the rest of the suite: under heavy load a test that takes 10 s on a quiet machine passed 30 s and failed on the
 * clock alone. The waits inside each test keep their own limits, so a real hang still fails at its step.
 */
export const BROWSER_TEST_TIMEOUT_MS = 90_000;

/**
 * Flags for a quiet, offline, headless Chromium. The test network rule holds in the browser too: every request that
 * is not to loopback goes to a proxy on a closed loopback port (loopback itself always bypasses a proxy), and no
 * name but localhost resolves.
 */
export const CHROMIUM_ARGS = [
  '--proxy-server=http://127.0.0.1:9',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Builds the panel's browser bundle when it is missing or older than its sources: what a test that serves HAL
 * from its sources in-process (no `hal serve` child) needs.
 */
export function ensurePanelBundle(): void {
  ensureWorkspaceBuilt('@hal-ai/ui-panel');
}

/** A running `hal serve` on a fresh data folder: it printed the first operator's password. */
export interface RunningHal extends HalProcess {
  password: string;
}

/**
 * Starts the built `hal serve` (`cli`, from {@link ensureBuilt}) on port 0 with a fresh data folder; resolves once
 * it listens. `cwd` is the working folder (default: this process's).
 */
export async function startHal(
  cli: string,
  dataDir: string,
  env: Record<string, string> = {},
  options: { cwd?: string } = {},
): Promise<RunningHal> {
  const hal = await startHalProcess(dataDir, env, { cli, ...options });
  const { password } = hal;
  if (password === null) {
    await hal.stop();
    throw new Error(`hal serve printed no first password: ${dataDir} is not a fresh data folder`);
  }
  return { ...hal, password };
}

/** Signs in as the first operator through the login page and waits to land on a console page. */
export async function signIn(page: Page, hal: RunningHal): Promise<void> {
  await page.goto(`${hal.url}/ops/login`);
  await page.fill('input[name=username]', 'admin');
  await page.fill('input[name=password]', hal.password);
  await Promise.all([
    page.waitForURL((target) => !target.pathname.startsWith('/ops/login')),
    page.press('input[name=password]', 'Enter'),
  ]);
}

/** Temporary folders a suite creates and removes at its end (`remove()` in `afterAll`). */
export function createTempDirs(): { make(prefix: string): string; remove(): void } {
  const made: string[] = [];
  return {
    make(prefix) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    remove() {
      for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Answers the re-auth dialog when it opens within `ms`; returns whether it did. */
export async function reauthIfAsked(page: Page, password: string, ms = 4000): Promise<boolean> {
  const dialog = page.locator('dialog.hal-reauth');
  try {
    await dialog.waitFor({ state: 'visible', timeout: ms });
  } catch {
    return false;
  }
  await dialog.locator('input[type=password]').fill(password);
  await dialog.locator('button[type=submit]').click();
  await dialog.waitFor({ state: 'detached' });
  return true;
}

/** Waits until the panel has loaded its rooms. */
export async function panelReady(page: Page): Promise<void> {
  await page.waitForSelector('[data-hal-panel][data-ready=true]', { timeout: 30_000 });
}

/** A JSON call of {@link apiSession}. */
export type ApiCall = <T = Record<string, unknown>>(
  method: string,
  route: string,
  body?: unknown,
) => Promise<{ status: number; body: T }>;

/** A console API session of its own (a fresh login, so its re-auth window is open): JSON calls with cookie and CSRF. */
export async function apiSession(url: string, password: string): Promise<ApiCall> {
  const session = await signInOverHttp(url, password);
  return async (method, route, body) => {
    const answer = await session.call(method, route, body);
    return { status: answer.status, body: answer.body ?? {} };
  };
}

/** A headless Chromium with its own profile folder, at the suite's default 1400 × 900, and its first page. */
export async function launchChromium(profileDir: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
  return { context, page: context.pages()[0] ?? (await context.newPage()) };
}

/** Creates an active OpenAI-protocol connection on a fake (a fresh random key per run); returns its id. */
export async function createFakeConnection(
  call: ApiCall,
  settings: { name: string; baseUrl: string; model: string },
): Promise<string> {
  const created = await call<{ connection: { id: string; status: string } }>(
    'POST',
    '/ops/api/ai/connections',
    {
      provider: 'openai',
      name: settings.name,
      auth: 'api_key',
      apiKey: randomBytes(18).toString('base64url'),
      baseUrl: settings.baseUrl,
      model: settings.model,
      identity: { role: '', traits: '', instructions: '' },
    },
  );
  if (created.body.connection?.status !== 'active') {
    throw new Error(`connection ${settings.name} is not active: ${JSON.stringify(created.body)}`);
  }
  return created.body.connection.id;
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core on the page (or on the parts `include` names) and returns its serious and critical violations as
 * `id (impact, nodes): first target`. axe is evaluated through the debugging protocol, so the console's CSP
 * (`script-src 'self'`) stays as it is.
 */
export async function seriousAxeViolations(page: Page, include?: string[]): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async (parts) => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown[] }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(parts ? { include: parts.map((part) => [part]) } : document, {
      resultTypes: ['violations'],
    });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}, ${violation.nodes.length}): ${JSON.stringify(violation.nodes[0]?.target)}`,
      );
  }, include ?? null);
}
