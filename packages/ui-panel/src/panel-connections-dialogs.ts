import { finish, openDialog } from './panel-dialogs.js';
import { createElement } from './panel-dom.js';

/**
 * A modal dialog of the connections screen: the panel's own ({@link openDialog}), so Tab and Shift+Tab stay
 * inside it and closing gives the focus back to the button that opened it (the same button of its card when
 * the card was rendered anew meanwhile), and a keyboard user lands where they started.
 */
function openModal(
  document: Document,
  className: string,
  title: string,
): {
  dialog: HTMLDialogElement;
  close: () => void;
} {
  const dialog = openDialog({ document }, className, title);
  return { dialog, close: () => finish(dialog) };
}

/** Texts of {@link openConfirmDialog}. */
export interface ConfirmDialogText {
  title: string;
  body: string;
  confirm: string;
  cancel: string;
}

/**
 * Asks the operator to confirm a destructive step (deleting a connection); resolves `true` on confirm,
 * `false` on cancel or Escape. The cancel button has the focus first: Enter alone never deletes.
 */
export function openConfirmDialog(document: Document, text: ConfirmDialogText): Promise<boolean> {
  const { dialog, close } = openModal(document, 'hal-confirm-dialog', text.title);
  const cancel = createElement(document, 'button', { type: 'button', class: 'hal-cancel' }, [text.cancel]);
  const confirm = createElement(document, 'button', { type: 'button', class: 'hal-danger' }, [text.confirm]);
  dialog.append(
    createElement(document, 'p', {}, [text.body]),
    createElement(document, 'div', { class: 'hal-dialog-buttons' }, [cancel, confirm]),
  );
  dialog.showModal();
  cancel.focus();
  return new Promise((resolve) => {
    const answer = (value: boolean) => () => {
      close();
      resolve(value);
    };
    cancel.addEventListener('click', answer(false));
    confirm.addEventListener('click', answer(true));
    dialog.addEventListener('cancel', answer(false));
  });
}

/** Texts of {@link openSecretDialog}. */
export interface SecretDialogText {
  title: string;
  label: string;
  submit: string;
  cancel: string;
}

/**
 * Asks for a new secret (an API key, an OAuth client secret) in a password field; resolves it, or `null`
 * on cancel. The value goes straight to the caller's request and is dropped with the dialog.
 */
export function openSecretDialog(document: Document, text: SecretDialogText): Promise<string | null> {
  const { dialog, close } = openModal(document, 'hal-secret-dialog', text.title);
  const form = createElement(document, 'form', { method: 'dialog' }) as HTMLFormElement;
  const input = createElement(document, 'input', {
    type: 'password',
    name: 'secret',
    autocomplete: 'off',
    required: '',
  }) as HTMLInputElement;
  const cancel = createElement(document, 'button', { type: 'button', class: 'hal-cancel' }, [text.cancel]);
  form.append(
    createElement(document, 'label', { class: 'hal-field' }, [
      createElement(document, 'span', {}, [text.label]),
      input,
    ]),
    createElement(document, 'div', { class: 'hal-dialog-buttons' }, [
      cancel,
      createElement(document, 'button', { type: 'submit', class: 'hal-primary' }, [text.submit]),
    ]),
  );
  dialog.append(form);
  dialog.showModal();
  input.focus();
  return new Promise((resolve) => {
    const cancelled = () => {
      close();
      resolve(null);
    };
    cancel.addEventListener('click', cancelled);
    dialog.addEventListener('cancel', cancelled);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = input.value;
      input.value = '';
      close();
      resolve(value === '' ? null : value);
    });
  });
}
