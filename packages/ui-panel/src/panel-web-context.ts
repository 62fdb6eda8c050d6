import type { ContextBlock } from '@hal-ai/spec';
import type { Translator } from './i18n/index.js';
import { createElement } from './panel-dom.js';

/** What the source view needs of the render context. */
export interface ContextRenderContext {
  document: Document;
  t: Translator;
}

/** Only http(s) links become clickable; anything else stays text. */
function safeHref(url: string): string | undefined {
  return /^https?:\/\//i.test(url) ? url : undefined;
}

/**
 * A context block of an operator message as a collapsible source: a linked web page shows its title, its final
 * URL (a `noopener` link) and whether its text was truncated or the fetch failed (with the code); opening it
 * shows the text the models received. A console page's context shows its title.
 *
 * @example
 * body.append(renderContextBlock(context, block));
 */
export function renderContextBlock(context: ContextRenderContext, block: ContextBlock): HTMLElement {
  const { document, t } = context;
  if (block.source === 'page') {
    return createElement(document, 'div', { class: 'hal-context' }, [`📄 ${block.title ?? block.url ?? ''}`]);
  }
  const failed = 'error' in block;
  const title = failed ? block.url : block.title || block.finalUrl || block.url;
  const badge = failed
    ? createElement(
        document,
        'span',
        { class: 'hal-web-badge hal-web-failed', 'data-code': block.error.code },
        [`${t('panel_web_failed')}: ${block.error.code}`],
      )
    : block.truncated
      ? createElement(document, 'span', { class: 'hal-web-badge hal-web-truncated' }, [
          t('panel_web_truncated'),
        ])
      : null;
  const link = (url: string) =>
    createElement(document, 'a', { href: safeHref(url), target: '_blank', rel: 'noopener noreferrer' }, [
      url,
    ]);
  return createElement(
    document,
    'details',
    { class: `hal-context hal-web-source${failed ? ' hal-web-source-failed' : ''}`, 'data-url': block.url },
    [
      createElement(document, 'summary', {}, [
        `🔗 ${t('panel_web_source')}: `,
        createElement(document, 'span', { class: 'hal-web-title' }, [title]),
        badge ? ' ' : null,
        badge,
      ]),
      failed
        ? createElement(document, 'p', { class: 'hal-web-error' }, [block.error.message])
        : createElement(document, 'div', { class: 'hal-web-body' }, [
            createElement(document, 'p', { class: 'hal-web-final' }, [
              `${t('panel_web_final_url')}: `,
              link(block.finalUrl),
            ]),
            createElement(document, 'pre', { class: 'hal-web-text' }, [block.text]),
          ]),
    ],
  );
}

/**
 * The warning on a proposal made after reading web content (`tainted`): its arguments may come from an untrusted
 * page. While it waits, a checkbox lets the operator state they checked them; the approval sends it as
 * `confirmTainted` (without it HAL answers `taint_confirmation_required`).
 */
export function renderTaintWarning(context: ContextRenderContext, status: string): HTMLElement {
  const { document, t } = context;
  return createElement(document, 'div', { class: 'hal-tainted', role: 'note' }, [
    createElement(document, 'p', {}, [`⚠ ${t('panel_tainted_warning')}`]),
    status === 'proposed'
      ? createElement(document, 'label', {}, [
          createElement(document, 'input', { type: 'checkbox', class: 'hal-tainted-confirm' }),
          ` ${t('panel_tainted_confirm')}`,
        ])
      : null,
  ]);
}
