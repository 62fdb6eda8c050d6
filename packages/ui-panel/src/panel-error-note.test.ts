import { describe, expect, it } from 'vitest';
import { createTranslator } from './i18n/index.js';
import { PanelHttpError } from './panel-api.js';
import { createTestWindow } from './panel-dom.test-support.js';
import { showErrorNote } from './panel-error-note.js';

// What `POST /ops/api/ai/connections` answers for an empty name (the host's parseInput, valibot 1.x).
const emptyName = new PanelHttpError(400, {
  code: 'validation_failed',
  message: 'name: use 1–40 letters, digits, _ . - and single spaces between words',
  issues: [
    {
      path: 'name',
      message: 'use 1–40 letters, digits, _ . - and single spaces between words',
      kind: 'validation',
      type: 'regex',
      expected: '/^[\\p{L}\\p{N}]$/u',
      received: '""',
      inputType: 'string',
    },
  ],
});

describe('showErrorNote', () => {
  it("says a refused form in the reader's language, field by field, and keeps the server's English in the title", () => {
    const document = createTestWindow().document;
    const note = document.createElement('p');
    showErrorNote(note, createTranslator('ko'), emptyName);
    expect(note.firstChild?.textContent).toBe('입력한 값이 올바르지 않습니다.');
    expect([...note.querySelectorAll('li[data-issue-path=name]')].map((li) => li.textContent)).toEqual([
      '이름: 비워 둘 수 없습니다',
    ]);
    expect(note.textContent).not.toContain('letters');
    expect(note.dataset.errorCode).toBe('validation_failed');
    expect(note.title).toContain('use 1–40 letters');

    showErrorNote(note, createTranslator('en'), emptyName);
    expect(note.textContent).toBe('Some values are not valid.Name: must not be empty');

    // Another code: its sentence alone, with the addressees a refusal names; a network failure as it is.
    showErrorNote(
      note,
      createTranslator('ko'),
      new PanelHttpError(400, {
        code: 'unknown_addressee',
        message: 'No such participant',
        participants: ['x'],
      }),
    );
    expect(note.textContent).toBe('메시지의 수신자를 찾을 수 없습니다. (x)');
    expect(note.querySelector('ul')).toBeNull();
    showErrorNote(note, createTranslator('ko'), new TypeError('Failed to fetch'));
    expect(note.textContent).toBe('TypeError: Failed to fetch');
    expect(note.hasAttribute('title')).toBe(false);
    expect(note.dataset.errorCode).toBeUndefined();
  });

  it('says the rule that failed when the answer names it in details.reason, with its values', () => {
    const document = createTestWindow().document;
    const note = document.createElement('p');
    const inactive = new PanelHttpError(400, {
      code: 'debate_invalid',
      message: 'claude is not active',
      id: 'c1',
      name: 'claude',
      reason: 'connection_inactive',
    });
    showErrorNote(note, createTranslator('ko'), inactive);
    expect(note.textContent).toBe('claude 연결이 활성 상태가 아닙니다.');
    expect(note.title).toBe('claude is not active (debate_invalid)');
    // A reason this version has no sentence for falls back to the code's sentence.
    showErrorNote(
      note,
      createTranslator('en'),
      new PanelHttpError(400, { code: 'debate_invalid', message: 'x', reason: 'new_rule' }),
    );
    expect(note.textContent).toBe('A debate cannot start with these settings.');
  });
});
