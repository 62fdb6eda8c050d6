import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, type RunningHal, startHal } from './e2e/panel-browser.test-support.js';
import { ensureBuilt } from './hal-serve.test-support.js';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(appDir, '../..');
const hasChromium = fs.existsSync(CHROMIUM);

const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

/** Every symbolic link under `folder` whose target lies outside it (a package that reaches back into the checkout). */
function linksLeaving(folder: string): string[] {
  const leaving: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const resolved = fs.realpathSync(full);
        if (!resolved.startsWith(`${folder}${path.sep}`)) leaving.push(`${full} -> ${resolved}`);
      } else if (entry.isDirectory()) walk(full);
    }
  };
  walk(folder);
  return leaving;
}

describe('the packaged HAL (pnpm package:hal) runs with no checkout beside it', () => {
  let workDir: string;
  let target: string;
  let hal: RunningHal | undefined;

  beforeAll(() => {
    // The panel bundle, every workspace library's dist/ and HAL's own with its assets: what packaging copies.
    ensureBuilt();
    // The temp folder is outside the repository, so nothing resolves back into the checkout's node_modules.
    workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hal-package-')));
    target = path.join(workDir, 'hal');
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts/package-hal.mjs'), target, '--skip-build'], {
      cwd: repoRoot,
      stdio: 'pipe',
      timeout: 540_000,
    });
  }, 600_000);

  afterAll(async () => {
    await hal?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('holds production dependencies only and no sources, and links nothing outside itself', () => {
    expect(linksLeaving(target)).toEqual([]);
    expect(fs.existsSync(path.join(target, 'src'))).toBe(false);
    const installed = fs.readdirSync(path.join(target, 'node_modules'));
    expect(installed).toContain('better-sqlite3');
    expect(installed).toContain('node-pty');
    // Development-only dependencies stay out.
    expect(installed).not.toContain('playwright-core');
    expect(installed).not.toContain('openai');
    // Every page asset (stylesheet, console script, favicon) and the panel's browser bundle.
    const pageAssets = fs.readdirSync(path.join(appDir, 'src/domain/pages/assets'));
    expect(fs.readdirSync(path.join(target, 'dist/assets')).sort()).toEqual(
      [...pageAssets, 'panel.js', 'panel.css'].sort(),
    );
  });

  it('starts from its own folder, logs in, serves the styled console and the AI panel', async () => {
    const dataDir = path.join(workDir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    hal = await startHal(path.join(target, 'dist/cli.js'), dataDir, { HOME: workDir }, { cwd: workDir });

    const login = await fetch(`${hal.url}/ops/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: hal.password }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    const page = await fetch(`${hal.url}/ops`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('href="/ops/assets/console.css"');
    expect(html).toContain('src="/ops/assets/panel.js"');

    // Everything the page links (stylesheets, scripts, the favicon) is served from the package itself.
    const linked = [...html.matchAll(/(?:href|src)="(\/ops\/assets\/[^"]+)"/g)].map(
      (match) => match[1] ?? '',
    );
    expect(linked).toEqual(expect.arrayContaining(['/ops/assets/favicon.svg', '/ops/assets/console.js']));
    for (const asset of linked) {
      const answer = await fetch(`${hal.url}${asset}`, { headers: { cookie } });
      expect(answer.status, asset).toBe(200);
      // Compared by digest: a deep equality over the 600 kB panel bundle takes seconds.
      expect(sha256(Buffer.from(await answer.arrayBuffer())), asset).toBe(
        sha256(fs.readFileSync(path.join(target, 'dist/assets', path.basename(asset)))),
      );
    }

    const css = await fetch(`${hal.url}/ops/assets/console.css`, { headers: { cookie } });
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(await css.text()).toBe(
      fs.readFileSync(path.join(appDir, 'src/domain/pages/assets/console.css'), 'utf8'),
    );
    const panel = await fetch(`${hal.url}/ops/assets/panel.js`, { headers: { cookie } });
    expect(panel.status).toBe(200);
    expect(await panel.text()).toBe(
      fs.readFileSync(path.join(repoRoot, 'packages/ui-panel/dist/browser/panel.js'), 'utf8'),
    );

    if (!hasChromium) {
      console.warn(`[package] browser half skipped: no Chromium at ${CHROMIUM}`);
      return;
    }
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext();
      const [name, value] = cookie.split('=') as [string, string];
      await context.addCookies([{ name, value, url: hal.url }]);
      const tab = await context.newPage();
      await tab.goto(`${hal.url}/ops`);
      await tab.waitForSelector('[data-hal-panel][data-ready=true]', { timeout: 30_000 });
      // The console's stylesheet applied: its custom properties are live on the page.
      const accent = await tab.evaluate(() =>
        getComputedStyle(document.documentElement).getPropertyValue('--accent').trim(),
      );
      expect(accent).not.toBe('');
    } finally {
      await browser.close();
    }
  }, 120_000);
});
