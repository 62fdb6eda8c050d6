import { describe, expect, it } from 'vitest';
import { createTranslator } from './i18n/index.js';
import { renderPublishing } from './panel-debate-publishing.js';
import { createTestWindow } from './panel-dom.test-support.js';

const t = createTranslator('ko');
const context = () => ({ document: createTestWindow().document, t });
const page = (overrides: Record<string, unknown>) => ({
  page: 'working-document',
  path: 'debates/tabs-d1/working-document',
  url: 'http://127.0.0.1:3000/i/7',
  status: 'published' as const,
  attempts: 0,
  lastError: null,
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

describe('renderPublishing', () => {
  it('shows nothing without a state, and says so when Wiki.js is not set up', () => {
    expect(renderPublishing(context(), undefined)).toBeNull();
    const off = renderPublishing(context(), { configured: false, pages: [], nextRetryAt: null });
    expect(off?.textContent).toBe(t('panel_debate_wiki_off'));
  });

  it('counts the pages the wiki has, links them, and shows a failure with its code and the next try', () => {
    const element = renderPublishing(context(), {
      configured: true,
      pages: [
        page({}),
        page({
          page: 'round-log',
          path: 'debates/tabs-d1/round-log',
          url: 'javascript:alert(1)',
          status: 'failed',
          attempts: 2,
          lastError: { code: 'wiki_unreachable', message: 'connection refused' },
        }),
      ],
      nextRetryAt: '2026-01-01T00:01:00.000Z',
    });
    expect(element?.dataset.state).toBe('failed');
    expect(element?.querySelector('summary')?.textContent).toBe(
      t('panel_debate_wiki_summary', { published: 1, total: 2 }),
    );
    expect(element?.querySelector('[data-page=working-document] a')?.getAttribute('href')).toBe(
      'http://127.0.0.1:3000/i/7',
    );
    // Only http(s) becomes a link.
    expect(element?.querySelector('[data-page=round-log] a')).toBeNull();
    expect(element?.querySelector('[data-page=round-log] .hal-debate-wiki-error')?.textContent).toBe(
      ` ${t('error_wiki_unreachable')}`,
    );
    expect(
      element?.querySelector('[data-page=round-log] .hal-debate-wiki-error')?.getAttribute('title'),
    ).toBe('connection refused (wiki_unreachable)');
    expect(element?.querySelector('.hal-debate-wiki-retry')?.textContent).toBe(
      t('panel_debate_wiki_retry', { at: '2026-01-01T00:01:00.000Z' }),
    );
  });
});
