import type { Action } from '@hal-ai/spec';
import { errorText, type LocaleFormatters, type Translator } from './i18n/index.js';
import { createElement } from './panel-dom.js';
import { renderImpactView } from './panel-impact-view.js';
import { renderTaintWarning } from './panel-web-context.js';

/** What a proposal card needs of the render context. */
export interface ActionCardContext {
  document: Document;
  t: Translator;
  /** Numbers of the impact in the same language as `t` (the panel's formatters). */
  format?: Pick<LocaleFormatters, 'number'>;
}

/**
 * What HAL computed a write or high action will change, as the action view carries it (`impact`,
 * the same description the three-step dialog shows): a `summary` line, `change` as
 * `{field: {from, to}}`, and further facts (the target's record, the deployments it touches, …).
 */
export interface ActionImpactView {
  summary?: string;
  change?: Record<string, { from?: unknown; to?: unknown }>;
  [fact: string]: unknown;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A scalar as the operator reads it; nested values as one line of JSON. */
function readable(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    return value.map((item) => readable(item)).join(', ');
  return JSON.stringify(value);
}

/**
 * A record as a definition list: one `dt` per key, its value as text (never HTML). Nested records
 * one level deep become their own list, deeper values one line of JSON.
 *
 * @example
 * card.append(renderValueList(document, { serverId: 'srv-1', reason: 'disk' }, 'hal-action-args'));
 */
export function renderValueList(
  document: Document,
  record: Record<string, unknown>,
  className: string,
  depth = 0,
): HTMLElement {
  const list = createElement(document, 'dl', { class: `hal-values ${className}` });
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    list.append(
      createElement(document, 'dt', {}, [key]),
      createElement(document, 'dd', { 'data-key': key }, [
        isRecord(value) && depth === 0
          ? renderValueList(document, value, 'hal-values-nested', depth + 1)
          : readable(value),
      ]),
    );
  }
  return list;
}

/**
 * What `GET /ops/api/ai/actions/:id/impact` answered for a pending write or high proposal: the impact
 * HAL computed (`null` for a tool without one), or `refusal` when HAL would refuse the action as it stands.
 */
export interface ActionImpactAnswer {
  impact: ActionImpactView | null;
  refusal: { code: string; message: string } | null;
  /**
   * `loading` while HAL computes it, `failed` when it could not be loaded (a network or server error): the card
   * says so and holds its approve button, instead of showing a write or high action as if nothing changed.
   */
  state?: 'loading' | 'failed';
}

/** Reads an impact answer defensively (an impact may also be a plain sentence). */
export function toImpactAnswer(body: { impact?: unknown; refusal?: unknown }): ActionImpactAnswer {
  const impact =
    typeof body.impact === 'string'
      ? { summary: body.impact }
      : isRecord(body.impact)
        ? (body.impact as ActionImpactView)
        : null;
  const refusal =
    isRecord(body.refusal) && typeof body.refusal.code === 'string'
      ? { code: body.refusal.code, message: String(body.refusal.message ?? '') }
      : null;
  return { impact, refusal };
}

function renderImpact(context: ActionCardContext, impact: ActionImpactView): HTMLElement {
  const section = renderImpactView(context, impact);
  section.classList.add('hal-action-impact');
  return section;
}

/** The id of the line that says why a card's approve button waits (its `aria-describedby`). */
function heldId(action: Action): string {
  return `hal-impact-held-${action.id}`;
}

/**
 * While the impact of a pending write or high proposal is being computed, or could not be loaded, the card says
 * so (with a retry after a failure) and its approve button waits: never offered as if nothing changed.
 */
function renderImpactPending(
  context: ActionCardContext,
  action: Action,
  state: 'loading' | 'failed',
): HTMLElement {
  const { document, t } = context;
  if (state === 'loading') {
    return createElement(document, 'p', { class: 'hal-impact-loading', role: 'status', id: heldId(action) }, [
      t('impact_ui_loading'),
    ]);
  }
  return createElement(document, 'div', { class: 'hal-impact-failed', role: 'alert', id: heldId(action) }, [
    createElement(document, 'p', {}, [`${t('impact_ui_failed')} ${t('impact_ui_approve_held')}`]),
    createElement(
      document,
      'button',
      { type: 'button', class: 'hal-impact-retry', 'data-impact-retry': '' },
      [t('impact_ui_retry')],
    ),
  ]);
}

/**
 * Renders a proposal card an operator can judge: the tool and its risk tier, the arguments as a
 * readable key/value list (the raw JSON one click away), for write and high actions the impact HAL
 * computed (`answer`, from `GET …/actions/:id/impact`; or what HAL would refuse), the target identifiers, the live state and, once run, the result or the error.
 * Approve/reject buttons (with `data-act`) while it is `proposed`. The card is focusable and
 * labelled, so keyboard and screen-reader users reach it as one unit.
 *
 * @example
 * slot.replaceChildren(renderActionCard(context, action));
 */
export function renderActionCard(
  context: ActionCardContext,
  action: Action,
  answer?: ActionImpactAnswer,
): HTMLElement {
  const { document, t } = context;
  const titleId = `hal-action-title-${action.id}`;
  const card = createElement(document, 'section', {
    class: `hal-action hal-risk-${action.risk} hal-action-${action.status}`,
    'data-action-id': action.id,
    'data-status': action.status,
    'aria-labelledby': titleId,
    tabindex: '-1',
  });
  card.append(
    createElement(document, 'header', { id: titleId }, [
      createElement(document, 'strong', {}, [`${t('panel_proposal')}: `]),
      createElement(document, 'code', { class: 'hal-action-tool' }, [action.tool]),
      createElement(document, 'span', { class: 'hal-risk', 'data-risk': action.risk }, [
        t(`risk_${action.risk}`),
      ]),
    ]),
  );
  const args = isRecord(action.args) ? action.args : null;
  card.append(
    createElement(document, 'div', { class: 'hal-action-section' }, [
      createElement(document, 'strong', {}, [t('panel_args')]),
      args && Object.keys(args).length > 0
        ? renderValueList(document, args, 'hal-action-args')
        : createElement(document, 'p', { class: 'hal-action-args-empty' }, [
            args ? t('panel_no_args') : readable(action.args),
          ]),
      createElement(document, 'details', { class: 'hal-action-raw' }, [
        createElement(document, 'summary', {}, [t('panel_raw_json')]),
        createElement(document, 'pre', {}, [createElement(document, 'code', {}, [json(action.args)])]),
      ]),
    ]),
  );
  const held =
    action.status === 'proposed' && action.risk !== 'read' && answer?.state !== undefined
      ? answer.state
      : undefined;
  if (held) card.append(renderImpactPending(context, action, held));
  if (answer && action.risk !== 'read') {
    if (answer.impact) card.append(renderImpact(context, answer.impact));
    if (answer.refusal) {
      card.append(
        createElement(
          document,
          'div',
          {
            class: 'hal-impact-refusal',
            role: 'alert',
            'data-code': answer.refusal.code,
            title: errorText(t, answer.refusal.code, answer.refusal.message).raw,
          },
          [`${t('panel_would_refuse')} ${errorText(t, answer.refusal.code, answer.refusal.message).text}`],
        ),
      );
    }
  }
  card.append(
    createElement(document, 'dl', { class: 'hal-action-facts' }, [
      action.identifiers.length ? createElement(document, 'dt', {}, [t('panel_identifiers')]) : null,
      action.identifiers.length
        ? createElement(
            document,
            'dd',
            { class: 'hal-identifiers' },
            action.identifiers.map((id) => createElement(document, 'code', {}, [id])),
          )
        : null,
      createElement(document, 'dt', {}, [t('panel_state')]),
      createElement(document, 'dd', { class: 'hal-action-state', role: 'status' }, [
        t(`panel_action_${action.status}`),
      ]),
    ]),
  );
  if (action.tainted) card.append(renderTaintWarning(context, action.status));
  if (action.status === 'executed' && action.result !== null && action.result !== undefined) {
    card.append(
      createElement(document, 'details', { class: 'hal-action-result' }, [
        createElement(document, 'summary', {}, [t('panel_result')]),
        isRecord(action.result)
          ? renderValueList(document, action.result, 'hal-result-values')
          : createElement(document, 'p', {}, [readable(action.result)]),
      ]),
    );
  }
  if (action.error) {
    card.append(
      createElement(
        document,
        'div',
        {
          class: 'hal-failure',
          role: 'alert',
          'data-error-code': action.error.code,
          title: errorText(t, action.error.code, action.error.message).raw,
        },
        [errorText(t, action.error.code, action.error.message).text],
      ),
    );
  }
  if (action.status === 'proposed') {
    card.append(
      createElement(document, 'div', { class: 'hal-action-buttons' }, [
        createElement(
          document,
          'button',
          {
            type: 'button',
            class: 'hal-approve',
            'data-act': 'approve',
            ...(held ? { disabled: '', 'aria-describedby': heldId(action) } : {}),
          },
          [t('panel_approve')],
        ),
        createElement(document, 'button', { type: 'button', class: 'hal-reject', 'data-act': 'reject' }, [
          t('panel_reject'),
        ]),
      ]),
    );
  }
  return card;
}
