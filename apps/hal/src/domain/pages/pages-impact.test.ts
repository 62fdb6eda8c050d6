import { translate } from '@hal-ai/ui-panel/i18n';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../../../test/foundation.test-support.js';

/*
 * The console's three-step page shows the impact as the panel does (issue #16 points 2 and 6): the summary from its
 * catalogue code in the operator's language, `field: from → to`, the facts as a list, and the raw JSON folded in a
 * <details> — never as the main text.
 */

const SETUP = 'operator:setup';
let t: TestApp;
let session: TestSession;

beforeAll(async () => {
  t = await createTestApp({ core: { hostname: 'hal-impact-page-host' } });
  session = await t.login();
});

afterAll(async () => {
  await t.close();
});

async function isolatePage(id: string): Promise<string> {
  const response = await t.request(`/ops/servers/${id}/isolate`, {
    method: 'POST',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: session.csrfToken, reason: 'disk errors' }),
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('the three-step page of a high console action', () => {
  it("shows the impact in the operator's language as a list, with the raw JSON folded", async () => {
    const { server } = await t.deps.core.servers.create(SETUP, { name: 'web-impact', role: 'web' });
    await t.deps.core.servers.approve(SETUP, { id: server.id });
    const html = await isolatePage(server.id);
    // Korean by default: the summary from its code, the change line with the states' words.
    expect(html).toContain(
      `<p class="impact-summary">${translate('ko', 'impact_server_isolate', { name: 'web-impact' })}</p>`,
    );
    const state = html.match(/<li data-field="state">(.*?)<\/li>/)?.[1]?.replace(/<[^>]+>/g, '');
    expect(state).toBe(
      `${translate('ko', 'impact_field_state')}: ${translate('ko', 'state_active')} → ${translate('ko', 'state_isolated')}`,
    );
    expect(html).toMatch(/<dd data-key="reason">disk errors<\/dd>/);
    // The JSON is there, but only inside the folded <details>: the main view has none of it.
    const start = html.indexOf('<section class="impact"');
    expect(start).toBeGreaterThan(0);
    const impact = html.slice(start, html.indexOf('</section>', start));
    const [main, folded] = impact.split('<details class="impact-raw">');
    expect(folded).toContain('&quot;summaryCode&quot;');
    expect(main).not.toMatch(/[{}]|&quot;/);
    // The English sentence models read is only in the raw JSON, not on a Korean page.
    expect(main).not.toContain('Isolate server web-impact');
    expect(folded).toContain('Isolate server web-impact');
  });
});
