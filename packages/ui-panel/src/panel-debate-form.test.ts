import { describe, expect, it } from 'vitest';
import { createTranslator } from './i18n/index.js';
import { PanelHttpError } from './panel-api.js';
import { createScriptedApi, testDebate } from './panel-debate.test-support.js';
import { newDebateBody, openNewDebateDialog } from './panel-debate-form.js';
import { createTestWindow, testConnection } from './panel-dom.test-support.js';

const t = createTranslator('ko');
const connections = [
  testConnection({ id: 'mod', name: 'moderator' }),
  testConnection({ id: 'c1', name: 'claude' }),
  testConnection({ id: 'c2', name: 'gpt' }),
  testConnection({ id: 'off', name: 'offline', status: 'disabled' }),
];

function open(send: (body: unknown) => unknown) {
  const window = createTestWindow();
  // jsdom has no modal dialogs: open is all the form needs here (Chromium covers the real one).
  window.HTMLDialogElement.prototype.showModal ??= function showModal(this: HTMLDialogElement) {
    this.open = true;
  };
  window.HTMLDialogElement.prototype.close ??= function close(this: HTMLDialogElement) {
    this.open = false;
  };
  const api = createScriptedApi({ send: (_method, _path, body) => send(body) });
  const result = openNewDebateDialog({ document: window.document, t, api, connections });
  const dialog = window.document.querySelector<HTMLDialogElement>('dialog.hal-debate-new');
  const form = dialog?.querySelector<HTMLFormElement>('form');
  if (!dialog || !form) throw new Error('no dialog');
  return { window, dialog, form, result, api };
}

function fill(form: HTMLFormElement, debaters: string[]) {
  (form.elements.namedItem('topic') as HTMLInputElement).value = '  탭 대 스페이스  ';
  (form.elements.namedItem('moderatorId') as HTMLSelectElement).value = 'mod';
  for (const box of form.querySelectorAll<HTMLInputElement>('input[name=debaterIds]'))
    box.checked = debaters.includes(box.value);
}

// Not requestSubmit: jsdom's constraint validation of number fields throws; Chromium covers the real submit.
const submit = (form: HTMLFormElement) =>
  form.dispatchEvent(
    new (form.ownerDocument.defaultView as unknown as typeof globalThis).Event('submit', {
      cancelable: true,
    }),
  );

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the new debate dialog', () => {
  it('offers only active connections and sends the cast with the SPEC defaults', () => {
    const { form } = open(() => ({ debate: testDebate() }));
    expect(
      [...form.querySelectorAll<HTMLInputElement>('input[name=debaterIds]')].map((box) => box.value),
    ).toEqual(['mod', 'c1', 'c2']);
    fill(form, ['c1', 'c2']);
    expect(newDebateBody(form)).toEqual({
      topic: '탭 대 스페이스',
      moderatorId: 'mod',
      debaterIds: ['c1', 'c2'],
      maxRounds: 8,
      tokenBudget: 200_000,
    });
    (form.elements.namedItem('maxRounds') as HTMLInputElement).value = '';
    expect(newDebateBody(form)).not.toHaveProperty('maxRounds');
  });

  it('shows the 400 debate_invalid message and stays open; a good cast resolves the debate', async () => {
    let refuse = true;
    const { form, dialog, result } = open(() => {
      if (refuse)
        throw new PanelHttpError(400, {
          code: 'debate_invalid',
          message: 'The moderator cannot also be a debater',
        });
      return { debate: testDebate({ id: 'd9' }) };
    });
    fill(form, ['mod', 'c1']);
    submit(form);
    await settle();
    const error = dialog.querySelector<HTMLElement>('.hal-dialog-error');
    expect(error?.dataset.errorCode).toBe('debate_invalid');
    // The refusal in the reader's language; the server's English stays one hover away.
    expect(error?.textContent).toBe(t('error_debate_invalid'));
    expect(error?.title).toBe('The moderator cannot also be a debater (debate_invalid)');
    expect(dialog.isConnected).toBe(true);
    refuse = false;
    fill(form, ['c1', 'c2']);
    submit(form);
    expect((await result)?.id).toBe('d9');
    expect(dialog.isConnected).toBe(false);
  });
});
