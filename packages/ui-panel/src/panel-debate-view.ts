/**
 * The debate view of a debate room (SPEC §9): a head with the topic, the status, the round count, the agreement
 * streak, the token meter and the export link; the operator's controls; and three panes — the round timeline, the
 * working document with its diff, and the room's own messages (the model turns as they stream, and any proposal a
 * debater made). It follows the room's `debate` events: the head and the controls change at once, and a new round
 * or document version reads `GET …/debates/:id` again, so a round appears without a reload.
 */
import type { Debate, Room } from '@hal-ai/spec';
import type { PanelApi } from './panel-api.js';
import { createDebateControls } from './panel-debate-controls.js';
import { renderDocumentPane } from './panel-debate-document.js';
import { renderPublishing } from './panel-debate-publishing.js';
import { type DebateControl, type DebateDetail, needsReload, tokenMeter } from './panel-debate-state.js';
import { renderTimeline } from './panel-debate-timeline.js';
import { createElement } from './panel-dom.js';
import type { RenderContext } from './panel-render.js';

/** The panes of a debate view. */
export type DebatePane = 'rounds' | 'document' | 'messages';

const PANES: readonly DebatePane[] = ['rounds', 'document', 'messages'];

/** Settings of {@link createDebateView}. */
export interface DebateViewSettings {
  context: RenderContext;
  api: PanelApi;
  /** Where the view renders. */
  host: HTMLElement;
  /** The room's message list: shown as the `messages` pane, hidden under the other two. */
  messages: HTMLElement;
}

/** One debate view, reused across debate rooms. */
export interface DebateView {
  /** Shows the debate of a debate room (found through `GET /debates`). */
  show(room: Room): Promise<void>;
  /** A live `debate` event of the shown room. */
  onDebate(debate: Debate): void;
  /** Leaves the debate view (another kind of room is active): the message list is shown again. */
  hide(): void;
}

const path = (debateId: string, rest = '') => `/ops/api/ai/debates/${encodeURIComponent(debateId)}${rest}`;

/**
 * Creates the debate view.
 *
 * @example
 * const view = createDebateView({ context, api, host, messages: list });
 * if (room.kind === 'debate') await view.show(room); else view.hide();
 */
export function createDebateView(settings: DebateViewSettings): DebateView {
  const { context, api, host, messages } = settings;
  const { document, t } = context;
  let detail: DebateDetail | undefined;
  let roomId: string | null = null;
  let pane: DebatePane = 'rounds';
  let diffOpen = false;
  let diffRange: { from: number; to: number } | null = null;
  let loads = 0;
  const note = createElement(document, 'p', { class: 'hal-debate-load-error', role: 'alert' });

  const controls = createDebateControls({
    document,
    t,
    send: (control: DebateControl, text) =>
      api
        .send<{ debate: Debate }>(
          'POST',
          path(current()?.id ?? '', `/${control}`),
          text === undefined ? {} : { text },
        )
        .then((answer) => answer.debate),
    onDebate: (debate) => applyDebate(debate),
  });
  const current = () => detail?.debate;

  const head = createElement(document, 'header', { class: 'hal-debate-head' });
  const panes = createElement(document, 'div', {
    class: 'hal-debate-panes',
    role: 'group',
    'aria-label': t('panel_debate_panes'),
  });
  const body = createElement(document, 'div', { class: 'hal-debate-body' });
  for (const name of PANES) {
    const button = createElement(
      document,
      'button',
      { type: 'button', 'data-pane': name, 'aria-pressed': 'false' },
      [t(`panel_debate_pane_${name}`)],
    );
    button.addEventListener('click', () => {
      pane = name;
      render();
    });
    panes.append(button);
  }
  const view = createElement(
    document,
    'section',
    { class: 'hal-debate', 'aria-label': t('panel_debate_title') },
    [head, controls.element, panes, note, body],
  );

  function renderHead(debate: Debate): void {
    const meter = tokenMeter(debate);
    const bar = createElement(document, 'progress', {
      class: `hal-debate-meter-bar hal-meter-${meter.level}`,
      max: String(meter.budget || 1),
      value: String(Math.min(meter.used, meter.budget)),
      'aria-label': t('panel_debate_tokens'),
    });
    head.replaceChildren(
      createElement(document, 'h2', { class: 'hal-debate-topic' }, [debate.topic]),
      createElement(document, 'div', { class: 'hal-debate-facts' }, [
        createElement(
          document,
          'span',
          { class: `hal-debate-status hal-debate-${debate.status}`, 'data-status': debate.status },
          [t(`panel_debate_status_${debate.status}`)],
        ),
        createElement(document, 'span', { class: 'hal-debate-progress' }, [
          t('panel_debate_round_of', { round: debate.round, max: debate.maxRounds }),
        ]),
        createElement(document, 'span', { class: 'hal-debate-streak' }, [
          t('panel_debate_streak', { count: debate.agreementStreak }),
        ]),
        createElement(
          document,
          'a',
          { class: 'hal-debate-export', href: path(debate.id, '/export'), download: '' },
          [t('panel_debate_export')],
        ),
      ]),
      createElement(document, 'div', { class: 'hal-debate-meter', 'data-level': meter.level }, [
        bar,
        createElement(document, 'span', { class: 'hal-debate-meter-text' }, [
          t('panel_debate_tokens_used', { used: meter.used, budget: meter.budget }),
        ]),
      ]),
    );
    if (debate.reason)
      head.append(createElement(document, 'p', { class: 'hal-debate-why' }, [debate.reason]));
    // The publish state comes with the detail only (a live event does not carry it).
    const publishing = renderPublishing(context, detail?.publishing);
    if (publishing) head.append(publishing);
    controls.update(debate);
  }

  function renderBody(): void {
    if (!detail) {
      body.replaceChildren();
      return;
    }
    if (pane === 'rounds') body.replaceChildren(renderTimeline(context, detail.debate, detail.rounds));
    else if (pane === 'document')
      body.replaceChildren(
        renderDocumentPane(context, detail, {
          diffOpen,
          onToggle: (open) => {
            diffOpen = open;
          },
          onDiff: (from, to) => {
            diffRange = { from, to };
            void load();
          },
        }),
      );
    else body.replaceChildren();
  }

  function render(): void {
    for (const button of panes.querySelectorAll<HTMLElement>('[data-pane]'))
      button.setAttribute('aria-pressed', String(button.dataset.pane === pane));
    body.hidden = pane === 'messages';
    messages.hidden = pane !== 'messages';
    if (detail) renderHead(detail.debate);
    renderBody();
  }

  /** Reads the debate again; an answer that a later load overtook is dropped. */
  async function load(debateId = current()?.id): Promise<void> {
    if (!debateId) return;
    const ticket = ++loads;
    const query = diffRange ? `?from=${diffRange.from}&to=${diffRange.to}` : '';
    try {
      const answer = await api.get<DebateDetail>(path(debateId, query));
      if (ticket !== loads || answer.debate.roomId !== roomId) return;
      detail = answer;
      note.textContent = '';
      render();
    } catch (error) {
      if (ticket !== loads) return;
      note.textContent = error instanceof Error ? error.message : String(error);
    }
  }

  /** A newer state of the shown debate (a live event, or a control's answer). */
  function applyDebate(debate: Debate): void {
    if (debate.roomId !== roomId) return;
    // Events and answers may cross: an older state never replaces a newer one.
    if (detail && debate.updatedAt < detail.debate.updatedAt) return;
    const reload = needsReload(detail, debate);
    if (detail) {
      detail = { ...detail, debate };
      render();
    }
    if (reload) void load(debate.id);
  }

  return {
    async show(room) {
      if (!host.contains(view)) host.replaceChildren(view);
      host.hidden = false;
      if (roomId !== room.id) {
        roomId = room.id;
        detail = undefined;
        pane = 'rounds';
        diffOpen = false;
        diffRange = null;
        head.replaceChildren(
          createElement(document, 'h2', { class: 'hal-debate-topic' }, [room.title ?? '']),
        );
      }
      render();
      try {
        const { debates } = await api.get<{ debates: Debate[] }>('/ops/api/ai/debates');
        const debate = debates.find((candidate) => candidate.roomId === room.id);
        if (debate && roomId === room.id) await load(debate.id);
      } catch (error) {
        note.textContent = error instanceof Error ? error.message : String(error);
      }
    },
    onDebate: applyDebate,
    hide() {
      host.hidden = true;
      host.replaceChildren();
      messages.hidden = false;
      roomId = null;
      detail = undefined;
      loads += 1;
    },
  };
}
