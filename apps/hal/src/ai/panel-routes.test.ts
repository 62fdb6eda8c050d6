import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/foundation.test-support.js';
import { createPanelRoutes, defaultPanelAssetsDir } from './panel-routes.js';

describe('panel routes', () => {
  let test: TestApp | undefined;
  afterEach(async () => {
    await test?.close();
    test = undefined;
  });

  it('keeps open state and width per operator, validated, across sessions', async () => {
    test = await createTestApp();
    const first = await test.login();
    const initial = await test.request('/ops/api/ai/prefs', { session: first });
    expect(initial.status).toBe(200);
    expect(await initial.json()).toEqual({
      prefs: { panelOpen: true, panelWidth: 380, webAutoFetch: true, locale: 'ko' },
    });

    const saved = await test.request('/ops/api/ai/prefs', {
      method: 'PUT',
      session: first,
      json: { panelOpen: false, panelWidth: 512 },
    });
    expect(await saved.json()).toEqual({
      prefs: { panelOpen: false, panelWidth: 512, webAutoFetch: true, locale: 'ko' },
    });
    await test.request('/ops/api/ai/prefs', {
      method: 'PUT',
      session: first,
      json: { panelOpen: true, webAutoFetch: false, locale: 'en' },
    });

    // Another browser: a new session of the same operator.
    const second = await test.login();
    const again = await test.request('/ops/api/ai/prefs', { session: second });
    expect(await again.json()).toEqual({
      prefs: { panelOpen: true, panelWidth: 512, webAutoFetch: false, locale: 'en' },
    });

    for (const body of [
      { panelWidth: 10 },
      { panelWidth: 'wide' },
      { panelOpen: 1 },
      { webAutoFetch: 'yes' },
      { locale: 'fr' },
      { other: true },
    ]) {
      const refused = await test.request('/ops/api/ai/prefs', { method: 'PUT', session: second, json: body });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error.code).toBe('validation_failed');
    }
  });

  it('needs a session and the CSRF token', async () => {
    test = await createTestApp();
    expect((await test.request('/ops/api/ai/prefs')).status).toBe(401);
    const session = await test.login();
    const forged = await test.request('/ops/api/ai/prefs', {
      method: 'PUT',
      session: { cookie: session.cookie, csrfToken: 'wrong' },
      json: { panelOpen: false },
    });
    expect(forged.status).toBe(403);
  });

  it('serves panel.js and panel.css from the assets folder with their types', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-panel-assets-'));
    fs.writeFileSync(path.join(dir, 'panel.js'), 'export const panel = 1;\n');
    fs.writeFileSync(path.join(dir, 'panel.css'), '.hal-panel{}\n');
    test = await createTestApp();
    const routes = createPanelRoutes(test.deps, { assetsDir: dir });
    // Mounted in the app, the assets sit behind the session like every /ops page.
    const anonymous = await test.request('/ops/assets/panel.js');
    expect([302, 303, 401]).toContain(anonymous.status);
    const js = await routes.request('/assets/panel.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(await js.text()).toBe('export const panel = 1;\n');
    const direct = await routes.request('/assets/panel.css');
    expect(direct.headers.get('content-type')).toContain('text/css');
    expect(await direct.text()).toBe('.hal-panel{}\n');
    expect((await routes.request('/assets/other.js')).status).toBe(404);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds the built bundle of @hal-ai/ui-panel through its package.json', () => {
    expect(defaultPanelAssetsDir()).toMatch(/ui-panel[\\/]dist[\\/]browser$/);
  });
});
