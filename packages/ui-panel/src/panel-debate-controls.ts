/**
 * The operator's debate controls (SPEC §9): one text box for words and the six buttons — inject, redirect and
 * answer carry the words; pause, resume and stop take none. Each button is enabled only in the states the server
 * accepts it in (`enabledControls`); a refusal the server still gives (a view that was a moment behind) is shown
 * with its code, e.g. `debate_not_running`. The element lives as long as the view, so typed words survive the
 * live updates that re-enable the buttons.
 */
import type { Debate } from '@hal-ai/spec';
import type { Translator } from './i18n/index.js';
import {
  DEBATE_CONTROLS,
  DEBATE_WORD_CONTROLS,
  type DebateControl,
  enabledControls,
} from './panel-debate-state.js';
import { createElement } from './panel-dom.js';
import { showErrorNote } from './panel-error-note.js';

/** Settings of {@link createDebateControls}. */
export interface DebateControlsSettings {
  document: Document;
  t: Translator;
  /** Sends one control; resolves with the debate the server answered, rejects with its refusal. */
  send(control: DebateControl, text: string | undefined): Promise<Debate>;
  /** The server's answer to a control (the view shows the new state at once). */
  onDebate(debate: Debate): void;
}

/** The controls of one debate view. */
export interface DebateControls {
  element: HTMLElement;
  /** Enables the buttons the debate's status allows and shows its question, if it waits for one. */
  update(debate: Debate): void;
}

/**
 * Creates the controls.
 *
 * @example
 * const controls = createDebateControls({ document, t, send, onDebate: render });
 * controls.update(debate);
 */
export function createDebateControls(settings: DebateControlsSettings): DebateControls {
  const { document, t } = settings;
  const words = createElement(document, 'textarea', {
    class: 'hal-debate-words',
    rows: '2',
    'aria-label': t('panel_debate_words'),
    placeholder: t('panel_debate_words_hint'),
  }) as HTMLTextAreaElement;
  const question = createElement(document, 'p', { class: 'hal-debate-waiting', role: 'status', hidden: '' });
  const error = createElement(document, 'p', { class: 'hal-debate-error', role: 'alert' });
  const buttons = new Map<DebateControl, HTMLButtonElement>();
  let debate: Debate | undefined;
  let busy = false;

  const refresh = () => {
    const allowed = debate ? enabledControls(debate.status) : undefined;
    for (const [control, button] of buttons) button.disabled = busy || !allowed?.[control];
  };

  const run = async (control: DebateControl) => {
    const needsWords = DEBATE_WORD_CONTROLS.includes(control);
    const text = words.value.trim();
    if (needsWords && text === '') {
      error.textContent = t('panel_debate_words_needed');
      words.focus();
      return;
    }
    busy = true;
    refresh();
    error.textContent = '';
    delete error.dataset.errorCode;
    try {
      const answered = await settings.send(control, needsWords ? text : undefined);
      if (needsWords) words.value = '';
      settings.onDebate(answered);
    } catch (failure) {
      showErrorNote(error, t, failure);
    } finally {
      busy = false;
      refresh();
    }
  };

  const row = (controls: readonly DebateControl[]) =>
    createElement(
      document,
      'div',
      { class: 'hal-debate-buttons' },
      controls.map((control) => {
        const button = createElement(
          document,
          'button',
          { type: 'button', class: `hal-debate-${control}`, 'data-control': control, disabled: '' },
          [t(`panel_debate_${control}`)],
        ) as HTMLButtonElement;
        button.addEventListener('click', () => void run(control));
        buttons.set(control, button);
        return button;
      }),
    );

  const element = createElement(
    document,
    'section',
    { class: 'hal-debate-controls', 'aria-label': t('panel_debate_controls') },
    [
      question,
      words,
      row(DEBATE_WORD_CONTROLS),
      row(DEBATE_CONTROLS.filter((control) => !DEBATE_WORD_CONTROLS.includes(control))),
      error,
    ],
  );

  return {
    element,
    update(next) {
      debate = next;
      const waiting = next.status === 'waiting_operator' && next.question;
      question.hidden = !waiting;
      question.textContent = waiting ? `${t('panel_debate_question')}: ${next.question}` : '';
      refresh();
    },
  };
}
