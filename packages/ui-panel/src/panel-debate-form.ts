/**
 * The "new debate" dialog (SPEC §9, §14): a topic, a moderator and two or more debaters among the active
 * connections, the maximum number of rounds and the token budget; it posts `POST /ops/api/ai/debates`. The
 * server is the judge of the cast: a refusal (`400 debate_invalid`, say the moderator among the debaters) is shown
 * in the dialog with its message, which stays open so the operator can correct it.
 */
import type { Connection, Debate } from '@hal-ai/spec';
import type { Translator } from './i18n/index.js';
import type { PanelApi } from './panel-api.js';
import { finish as closeDialog, openDialog } from './panel-dialogs.js';
import { createElement } from './panel-dom.js';
import { showErrorNote } from './panel-error-note.js';

/** What the form sends (`POST /ops/api/ai/debates`). */
export interface NewDebateBody {
  topic: string;
  moderatorId: string;
  debaterIds: string[];
  maxRounds?: number;
  tokenBudget?: number;
}

/** Settings of {@link openNewDebateDialog}. */
export interface NewDebateDialogSettings {
  document: Document;
  t: Translator;
  api: PanelApi;
  connections: readonly Connection[];
}

/** The defaults SPEC §9 gives a debate (what the fields show before the operator changes them). */
export const NEW_DEBATE_DEFAULTS = { maxRounds: 8, tokenBudget: 200_000 } as const;

/**
 * Reads the form into the request body: the trimmed topic, the checked debaters in list order, and the two
 * numbers when they are filled in (left out otherwise, so the server's defaults apply).
 */
export function newDebateBody(form: HTMLFormElement): NewDebateBody {
  const data = new (form.ownerDocument.defaultView as Window & typeof globalThis).FormData(form);
  const number = (name: string) => {
    const raw = String(data.get(name) ?? '').trim();
    return raw === '' ? undefined : Number(raw);
  };
  const maxRounds = number('maxRounds');
  const tokenBudget = number('tokenBudget');
  return {
    topic: String(data.get('topic') ?? '').trim(),
    moderatorId: String(data.get('moderatorId') ?? ''),
    debaterIds: data.getAll('debaterIds').map(String),
    ...(maxRounds !== undefined ? { maxRounds } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
  };
}

function field(document: Document, label: string, control: HTMLElement): HTMLElement {
  return createElement(document, 'label', {}, [label, control]);
}

/**
 * Opens the dialog; resolves the created debate, or `null` when the operator cancels.
 *
 * @example
 * const debate = await openNewDebateDialog({ document, t, api, connections: [...connections.values()] });
 */
export function openNewDebateDialog(settings: NewDebateDialogSettings): Promise<Debate | null> {
  const { document, t, api } = settings;
  const active = settings.connections.filter((connection) => connection.status === 'active');
  const dialog = openDialog({ document }, 'hal-debate-new', t('panel_debate_new_title'));
  const form = createElement(document, 'form', {
    method: 'dialog',
    class: 'hal-debate-form',
  }) as HTMLFormElement;
  const topic = createElement(document, 'input', {
    type: 'text',
    name: 'topic',
    required: '',
    maxlength: '500',
  }) as HTMLInputElement;
  const moderator = createElement(
    document,
    'select',
    { name: 'moderatorId', required: '' },
    active.map((connection) =>
      createElement(document, 'option', { value: connection.id }, [connection.name]),
    ),
  ) as HTMLSelectElement;
  const debaters = createElement(document, 'fieldset', { class: 'hal-debate-debaters' }, [
    createElement(document, 'legend', {}, [t('panel_debate_debaters')]),
    ...active.map((connection) =>
      createElement(document, 'label', { class: 'hal-check' }, [
        createElement(document, 'input', { type: 'checkbox', name: 'debaterIds', value: connection.id }),
        ` ${connection.name}`,
        connection.model
          ? createElement(document, 'span', { class: 'hal-model' }, [` ${connection.model}`])
          : null,
      ]),
    ),
  ]);
  const maxRounds = createElement(document, 'input', {
    type: 'number',
    name: 'maxRounds',
    min: '1',
    max: '50',
    value: String(NEW_DEBATE_DEFAULTS.maxRounds),
  });
  const tokenBudget = createElement(document, 'input', {
    type: 'number',
    name: 'tokenBudget',
    min: '1000',
    step: '1000',
    value: String(NEW_DEBATE_DEFAULTS.tokenBudget),
  });
  const error = createElement(document, 'p', { class: 'hal-dialog-error', role: 'alert' });
  const cancel = createElement(document, 'button', { type: 'button', class: 'hal-cancel' }, [
    t('panel_debate_cancel'),
  ]);
  const submit = createElement(document, 'button', { type: 'submit', class: 'hal-primary' }, [
    t('panel_debate_start'),
  ]) as HTMLButtonElement;
  const hint =
    active.length < 3
      ? createElement(document, 'p', { class: 'hal-debate-hint' }, [t('panel_debate_need_three')])
      : '';
  form.append(
    field(document, t('panel_debate_topic'), topic),
    field(document, t('panel_debate_moderator'), moderator),
    debaters,
    createElement(document, 'div', { class: 'hal-debate-numbers' }, [
      field(document, t('panel_debate_max_rounds'), maxRounds),
      field(document, t('panel_debate_budget'), tokenBudget),
    ]),
    hint,
    error,
    createElement(document, 'div', { class: 'hal-dialog-buttons' }, [cancel, submit]),
  );
  dialog.append(form);
  dialog.showModal();
  topic.focus();
  return new Promise((resolve) => {
    const cancelWith = () => {
      closeDialog(dialog);
      resolve(null);
    };
    cancel.addEventListener('click', cancelWith);
    dialog.addEventListener('cancel', cancelWith);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      submit.disabled = true;
      error.textContent = '';
      delete error.dataset.errorCode;
      api
        .send<{ debate: Debate }>('POST', '/ops/api/ai/debates', newDebateBody(form))
        .then(({ debate }) => {
          closeDialog(dialog);
          resolve(debate);
        })
        .catch((failure: unknown) => {
          showErrorNote(error, t, failure);
        })
        .finally(() => {
          submit.disabled = false;
          // Disabling the pressed button dropped the focus on the bare page: a refusal hands it back to the
          // button (the alert above it is read out), so Enter tries again and Tab stays inside the dialog.
          if (dialog.open && !dialog.contains(document.activeElement)) submit.focus();
        });
    });
  });
}
