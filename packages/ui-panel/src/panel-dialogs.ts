import type { LocaleFormatters, Translator } from './i18n/index.js';
import { type PanelApi, PanelHttpError } from './panel-api.js';
import { showErrorNote } from './panel-error-note.js';
import { renderImpactView } from './panel-impact-view.js';
import { createElement } from './panel-render.js';

/** What the dialogs need. */
export interface DialogContext {
  document: Document;
  t: Translator;
  api: PanelApi;
  /** Numbers in the same language as `t` (the three-step dialog's impact). */
  format?: Pick<LocaleFormatters, 'number'>;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Where focus was before each open dialog: it goes back there when the dialog ends. */
const openers = new WeakMap<HTMLDialogElement, Element | null>();

/**
 * Keeps Tab and Shift+Tab inside the dialog (a modal dialog makes the page inert, but Tab would
 * still leave it for the browser's own controls).
 */
function trapFocus(dialog: HTMLDialogElement): void {
  dialog.addEventListener('keydown', (event) => {
    // A control that uses Tab itself (the login terminal's xterm sends it to the program) has handled it.
    if (event.key !== 'Tab' || event.defaultPrevented) return;
    const focusable = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
      (element) => !element.closest('[hidden]'),
    );
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    const active = dialog.ownerDocument.activeElement;
    if (event.shiftKey && (active === first || !dialog.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  });
}

/** The last element a dialog was opened from, per document (a dialog that follows another keeps it). */
const lastOpener = new WeakMap<Document, Element>();

/**
 * Names the control a dialog about to open belongs to, for when that control cannot keep focus
 * meanwhile (approving disables the card's buttons before the re-auth or three-step dialog opens).
 */
export function rememberOpener(document: Document, element: Element | null): void {
  if (element && element !== document.body) lastOpener.set(document, element);
}

/** The cards a dialog can be opened from: a proposal, a connection, a discovered CLI (selector, key). */
const CARDS = [
  ['.hal-action[data-action-id]', 'actionId'],
  ['[data-connection-id]', 'connectionId'],
  ['.hal-cli-card[data-cli]', 'cli'],
] as const;

/** The card the control belongs to as the page holds it now (it may have been rendered anew since). */
function cardOf(document: Document, element: Element): HTMLElement | null {
  for (const [selector, key] of CARDS) {
    const id = element.closest<HTMLElement>(selector)?.dataset[key];
    if (id === undefined) continue;
    return (
      [...document.querySelectorAll<HTMLElement>(selector)].find((card) => card.dataset[key] === id) ?? null
    );
  }
  return null;
}

/**
 * Gives focus back to what had it before the dialog opened. When that control is disabled now
 * (a proposal being executed) or was replaced (the card rendered anew once decided), its proposal
 * card takes focus instead, so keyboard users stay where they were.
 */
function restoreFocus(document: Document, opener: Element | null | undefined): void {
  if (!opener) return;
  const target = opener as HTMLElement;
  if (opener.isConnected && !(target as HTMLButtonElement).disabled && typeof target.focus === 'function') {
    target.focus();
    if (document.activeElement === target) return;
  }
  const card = cardOf(document, opener);
  // The same button on the card rendered anew, else the card itself.
  const act = (opener as HTMLElement).dataset?.act;
  const same = act
    ? card?.querySelector<HTMLButtonElement>(`button[data-act="${act}"]:not([disabled])`)
    : null;
  (same ?? card)?.focus();
}

/**
 * Adds an empty modal dialog of the panel (title, focus trap, focus returned on close) to the page; the caller
 * fills it, calls `showModal()` and ends it with {@link finish}.
 */
export function openDialog(
  context: Pick<DialogContext, 'document'>,
  className: string,
  title: string,
): HTMLDialogElement {
  const { document } = context;
  const dialog = createElement(document, 'dialog', {
    class: `hal-dialog ${className}`,
    'aria-labelledby': `${className}-title`,
    'aria-modal': 'true',
  }) as HTMLDialogElement;
  dialog.append(createElement(document, 'h2', { id: `${className}-title` }, [title]));
  holdFocus(dialog);
  document.body.append(dialog);
  return dialog;
}

/**
 * Makes a modal dialog keep the keyboard focus (Tab and Shift+Tab cycle inside it) and remember the control
 * that had it, which {@link finish} gives it back to. {@link openDialog} does this itself; a dialog built
 * elsewhere (the login terminal) calls it before `showModal()`.
 */
export function holdFocus(dialog: HTMLDialogElement): void {
  const document = dialog.ownerDocument;
  // A dialog that follows another (re-auth, then the three steps) returns focus where the first came from.
  const active = document.activeElement;
  const fresh = active && active !== document.body && !active.closest('dialog') ? active : null;
  const opener = fresh ?? lastOpener.get(document) ?? null;
  if (opener) lastOpener.set(document, opener);
  openers.set(dialog, opener);
  trapFocus(dialog);
}

/** Closes and removes a dialog of {@link openDialog}, and gives focus back to where it was before. */
export function finish(dialog: HTMLDialogElement): void {
  if (dialog.open) dialog.close();
  dialog.remove();
  const opener = openers.get(dialog);
  openers.delete(dialog);
  // After the current click or key has done its work (a card may render anew first).
  setTimeout(() => {
    const active = dialog.ownerDocument.activeElement;
    // Another dialog took over meanwhile: it restores focus itself when it ends.
    if (active?.closest('dialog[open]')) return;
    restoreFocus(dialog.ownerDocument, opener);
  }, 0);
}

/**
 * The re-authentication dialog: asks for the password right where `401 reauth_required` happened,
 * posts `POST /ops/api/reauth`, and resolves `true` once the window is open again (`false` on cancel).
 */
export function openReauthDialog(context: DialogContext): Promise<boolean> {
  const { document, t, api } = context;
  const dialog = openDialog(context, 'hal-reauth', t('panel_reauth_title'));
  const form = createElement(document, 'form', { method: 'dialog' }) as HTMLFormElement;
  const input = createElement(document, 'input', {
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: '',
    'aria-label': t('panel_password'),
  }) as HTMLInputElement;
  const error = createElement(document, 'p', { class: 'hal-dialog-error', role: 'alert' });
  const cancel = createElement(document, 'button', { type: 'button', class: 'hal-cancel' }, [
    t('panel_cancel'),
  ]);
  form.append(
    createElement(document, 'p', {}, [t('panel_reauth_body')]),
    createElement(document, 'label', {}, [t('panel_password'), input]),
    error,
    createElement(document, 'div', { class: 'hal-dialog-buttons' }, [
      cancel,
      createElement(document, 'button', { type: 'submit', class: 'hal-primary' }, [t('panel_confirm')]),
    ]),
  );
  dialog.append(form);
  dialog.showModal();
  input.focus();
  return new Promise((resolve) => {
    cancel.addEventListener('click', () => {
      finish(dialog);
      resolve(false);
    });
    dialog.addEventListener('cancel', () => {
      finish(dialog);
      resolve(false);
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      api
        .send('POST', '/ops/api/reauth', { password: input.value })
        .then(() => {
          finish(dialog);
          resolve(true);
        })
        .catch((failure: unknown) => {
          showErrorNote(error, t, failure);
          input.select();
        });
    });
  });
}

/** What the three-step dialog collected. */
export interface ThreeStepConfirmation {
  confirmToken: string;
  confirmImpact: true;
  confirmIdentifiers: string[];
  confirmExecute: true;
}

/**
 * The three-step dialog of a high action (`409 three_step_required`): (1) the impact (the proposal card's
 * impact block, in the operator's language), (2) every
 * identifier retyped exactly, (3) execute. Resolves the confirmation body, or `null` on cancel.
 */
export function openThreeStepDialog(
  context: DialogContext,
  details: { impact?: unknown; identifiers?: unknown; confirmToken?: unknown },
): Promise<ThreeStepConfirmation | null> {
  const { document, t } = context;
  const identifiers = Array.isArray(details.identifiers) ? details.identifiers.map(String) : [];
  const dialog = openDialog(context, 'hal-three-step', t('panel_three_step_title'));
  const body = createElement(document, 'div', { class: 'hal-step' });
  dialog.append(body);
  dialog.showModal();
  return new Promise((resolve) => {
    const cancelWith = () => {
      finish(dialog);
      resolve(null);
    };
    dialog.addEventListener('cancel', cancelWith);
    const cancelButton = () =>
      createElement(document, 'button', { type: 'button', class: 'hal-cancel' }, [t('panel_cancel')]);

    function stepOne(): void {
      const next = createElement(document, 'button', { type: 'button', class: 'hal-primary hal-step-next' }, [
        t('panel_next'),
      ]);
      const cancel = cancelButton();
      body.replaceChildren(
        createElement(document, 'h3', {}, [t('panel_step_impact')]),
        // The same impact block as the proposal card: a readable list, the raw JSON one click away.
        renderImpactView(context, details.impact),
        createElement(document, 'div', { class: 'hal-dialog-buttons' }, [cancel, next]),
      );
      cancel.addEventListener('click', cancelWith);
      next.addEventListener('click', stepTwo);
      next.focus();
    }

    function stepTwo(): void {
      const inputs = identifiers.map(
        (identifier, index) =>
          createElement(document, 'input', {
            type: 'text',
            class: 'hal-retype',
            autocomplete: 'off',
            spellcheck: 'false',
            'data-index': String(index),
            'aria-label': `${identifier} — ${t('panel_retype')}`,
          }) as HTMLInputElement,
      );
      const next = createElement(
        document,
        'button',
        { type: 'button', class: 'hal-primary hal-step-next', disabled: '' },
        [t('panel_next')],
      ) as HTMLButtonElement;
      const cancel = cancelButton();
      const check = () => {
        next.disabled = !inputs.every((input, index) => input.value === identifiers[index]);
      };
      for (const input of inputs) input.addEventListener('input', check);
      body.replaceChildren(
        createElement(document, 'h3', {}, [t('panel_step_identifiers')]),
        ...identifiers.map((identifier, index) =>
          createElement(document, 'label', {}, [
            createElement(document, 'code', {}, [identifier]),
            inputs[index],
          ]),
        ),
        createElement(document, 'div', { class: 'hal-dialog-buttons' }, [cancel, next]),
      );
      cancel.addEventListener('click', cancelWith);
      next.addEventListener('click', () => stepThree(inputs.map((input) => input.value)));
      check();
      inputs[0]?.focus();
    }

    function stepThree(typed: string[]): void {
      const execute = createElement(
        document,
        'button',
        { type: 'button', class: 'hal-danger hal-step-execute' },
        [t('panel_execute')],
      );
      const cancel = cancelButton();
      body.replaceChildren(
        createElement(document, 'h3', {}, [t('panel_step_execute')]),
        createElement(document, 'p', {}, [typed.join(', ')]),
        createElement(document, 'div', { class: 'hal-dialog-buttons' }, [cancel, execute]),
      );
      cancel.addEventListener('click', cancelWith);
      execute.addEventListener('click', () => {
        finish(dialog);
        resolve({
          confirmToken: String(details.confirmToken ?? ''),
          confirmImpact: true,
          confirmIdentifiers: typed,
          confirmExecute: true,
        });
      });
      execute.focus();
    }

    stepOne();
  });
}

/** Asks for a reason to reject a proposal; resolves the reason, or `null` on cancel. */
export function openRejectDialog(context: DialogContext): Promise<string | null> {
  const { document, t } = context;
  const dialog = openDialog(context, 'hal-reject-dialog', t('panel_reject_reason'));
  const form = createElement(document, 'form', { method: 'dialog' }) as HTMLFormElement;
  const reason = createElement(document, 'textarea', {
    rows: '3',
    'aria-label': t('panel_reject_reason'),
  }) as HTMLTextAreaElement;
  const cancel = createElement(document, 'button', { type: 'button', class: 'hal-cancel' }, [
    t('panel_cancel'),
  ]);
  form.append(
    reason,
    createElement(document, 'div', { class: 'hal-dialog-buttons' }, [
      cancel,
      createElement(document, 'button', { type: 'submit', class: 'hal-danger' }, [t('panel_reject')]),
    ]),
  );
  dialog.append(form);
  dialog.showModal();
  reason.focus();
  return new Promise((resolve) => {
    const cancelWith = () => {
      finish(dialog);
      resolve(null);
    };
    cancel.addEventListener('click', cancelWith);
    dialog.addEventListener('cancel', cancelWith);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      finish(dialog);
      resolve(reason.value);
    });
  });
}

/**
 * Runs a state-changing call; on `401 reauth_required` opens the re-auth dialog right there and
 * retries once it succeeds (SPEC §1: a dialog at that point, not a banner).
 */
export async function withReauth<T>(context: DialogContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PanelHttpError && error.code === 'reauth_required') {
      if (await openReauthDialog(context)) return withReauth(context, call);
    }
    throw error;
  }
}
