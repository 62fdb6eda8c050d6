/**
 * A debate's Wiki.js publishing in the debate view (SPEC §9): whether it is set up, and per page (working
 * document, round log, conclusion) its path, whether the wiki has the latest content, the last failure with its
 * code, and when HAL retries. Publishing never blocks the debate; this only shows where it stands.
 */
import { errorText, type Translator } from './i18n/index.js';
import type { DebatePublishingView } from './panel-debate-state.js';
import { createElement } from './panel-dom.js';

/** What the publishing renderer needs. */
export interface DebatePublishingContext {
  document: Document;
  t: Translator;
}

/** A link only to an http(s) address: anything else stays text. */
function safeLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * Renders the publish state as a disclosure whose summary counts the pages the wiki has; nothing for a host that
 * does not report one.
 *
 * @example
 * head.append(renderPublishing(context, detail.publishing) ?? '');
 */
export function renderPublishing(
  context: DebatePublishingContext,
  publishing: DebatePublishingView | undefined,
): HTMLElement | null {
  const { document, t } = context;
  if (!publishing) return null;
  if (!publishing.configured) {
    return createElement(document, 'p', { class: 'hal-debate-wiki', 'data-state': 'off' }, [
      t('panel_debate_wiki_off'),
    ]);
  }
  const failed = publishing.pages.filter((page) => page.status === 'failed').length;
  const published = publishing.pages.length - failed;
  const items = publishing.pages.map((page) => {
    const href = safeLink(page.url);
    return createElement(document, 'li', { 'data-page': page.page, 'data-status': page.status }, [
      href
        ? createElement(document, 'a', { href, target: '_blank', rel: 'noopener noreferrer' }, [page.path])
        : createElement(document, 'code', {}, [page.path]),
      ' ',
      createElement(document, 'span', { class: `hal-debate-wiki-${page.status}` }, [
        t(page.status === 'published' ? 'panel_debate_wiki_published' : 'panel_debate_wiki_failed'),
      ]),
      page.lastError
        ? createElement(
            document,
            'span',
            {
              class: 'hal-debate-wiki-error',
              'data-error-code': page.lastError.code,
              title: errorText(t, page.lastError.code, page.lastError.message).raw,
            },
            [` ${errorText(t, page.lastError.code, page.lastError.message).text}`],
          )
        : null,
    ]);
  });
  return createElement(
    document,
    'details',
    { class: 'hal-debate-wiki', 'data-state': failed > 0 ? 'failed' : 'ok' },
    [
      createElement(document, 'summary', {}, [
        publishing.pages.length === 0
          ? t('panel_debate_wiki_pending')
          : t('panel_debate_wiki_summary', { published, total: publishing.pages.length }),
      ]),
      createElement(document, 'ul', {}, items),
      publishing.nextRetryAt
        ? createElement(document, 'p', { class: 'hal-debate-wiki-retry' }, [
            t('panel_debate_wiki_retry', { at: publishing.nextRetryAt }),
          ])
        : null,
    ],
  );
}
