import {
  type ImpactChange,
  type ImpactFact,
  impactLines,
  type LocaleFormatters,
  type Translator,
} from './i18n/index.js';
import { createElement } from './panel-dom.js';

/*
 * The impact block of the panel (issue #16 point 6): the proposal card and the three-step dialog show what HAL
 * computed an action will change with this one renderer, so the operator judges the same thing twice. It renders
 * `impactLines` (the reading the console's three-step page renders too): the summary in the operator's language,
 * the changes as `field: from → to`, the other facts as a key/value list, the raw JSON in a closed <details>.
 */

/** What the impact block needs of the render context. */
export interface ImpactViewContext {
  document: Document;
  t: Translator;
  /** Numbers in the same language as `t`; without it they are shown as plain digits. */
  format?: Pick<LocaleFormatters, 'number'>;
}

function changeList(document: Document, changes: readonly ImpactChange[], className: string): HTMLElement {
  return createElement(
    document,
    'ul',
    { class: className },
    changes.map((change) =>
      createElement(document, 'li', { 'data-field': change.field }, [
        createElement(document, 'span', { class: 'hal-impact-field' }, [change.label]),
        ': ',
        change.from === null
          ? null
          : createElement(document, 'span', { class: 'hal-impact-from' }, [change.from]),
        change.from === null ? null : ' → ',
        createElement(document, 'span', { class: 'hal-impact-to' }, [change.to]),
      ]),
    ),
  );
}

function factList(document: Document, facts: readonly ImpactFact[], className: string): HTMLElement {
  const list = createElement(document, 'dl', { class: `hal-values ${className}` });
  for (const fact of facts) {
    list.append(
      createElement(document, 'dt', {}, [fact.label]),
      createElement(document, 'dd', { 'data-key': fact.key }, [
        fact.facts
          ? factList(document, fact.facts, 'hal-values-nested')
          : fact.changes
            ? changeList(document, fact.changes, 'hal-impact-differences')
            : (fact.text ?? ''),
      ]),
    );
  }
  return list;
}

/**
 * Renders an impact as the operator reads it, in their language; `impact` is what HAL answered (a record, or a
 * plain sentence). Text only, never HTML.
 *
 * @example
 * card.append(renderImpactView({ document, t }, answer.impact));
 */
export function renderImpactView(context: ImpactViewContext, impact: unknown): HTMLElement {
  const { document, t } = context;
  const lines = impactLines(t, impact, context.format);
  const title = createElement(document, 'strong', { class: 'hal-impact-title' }, [t('impact_ui_title')]);
  const section = createElement(document, 'div', { class: 'hal-impact', role: 'group' }, [
    title,
    lines.summary === null
      ? null
      : createElement(document, 'p', { class: 'hal-impact-summary' }, [lines.summary]),
  ]);
  section.setAttribute('aria-label', t('impact_ui_title'));
  if (lines.changes.length > 0) {
    section.append(changeList(document, lines.changes, 'hal-impact-changes'));
  }
  if (lines.facts.length > 0) section.append(factList(document, lines.facts, 'hal-impact-facts'));
  section.append(
    createElement(document, 'details', { class: 'hal-impact-raw' }, [
      createElement(document, 'summary', {}, [t('impact_ui_raw')]),
      createElement(document, 'pre', {}, [createElement(document, 'code', {}, [lines.raw])]),
    ]),
  );
  return section;
}
