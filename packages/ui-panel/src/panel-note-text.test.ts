import { describe, expect, it } from 'vitest';
import { createTranslator } from './i18n/index.js';
import { createTestContext, testMessage } from './panel-dom.test-support.js';
import { commandDescription, type NoteBlock, noteText } from './panel-note-text.js';
import { renderMessage } from './panel-render.js';

const ko = createTranslator('ko');
const en = createTranslator('en');

const model: NoteBlock = {
  type: 'note',
  text: 'Claude now uses m-2.',
  code: 'command_model',
  params: { name: 'Claude', model: 'm-2' },
};

describe('HAL notes in the reader language', () => {
  it('says a stored note in Korean or English from its code and params', () => {
    expect(noteText(ko, model)).toBe(ko('panel_note_command_model', { name: 'Claude', model: 'm-2' }));
    expect(noteText(ko, model)).toBe('Claude: 이제 m-2 모델을 사용합니다.');
    expect(noteText(en, model)).toBe('Claude now uses m-2.');
    const reset: NoteBlock = {
      type: 'note',
      text: 'New conversation: history cleared, 2 pending proposal(s) cancelled.',
      code: 'command_reset_cancelled',
      params: { cancelled: 2 },
    };
    expect(noteText(ko, reset)).toBe('새 대화: 기록을 지우고 대기 중이던 제안 2개를 취소했습니다.');
  });

  it('reads the stored text for an unknown code, an older note without params, or params that do not fill it', () => {
    expect(
      noteText(ko, { type: 'note', text: 'from a newer HAL', code: 'later_code', params: { a: 1 } }),
    ).toBe('from a newer HAL');
    expect(noteText(ko, { type: 'note', text: 'relay limit', code: 'relay_limit' })).toBe('relay limit');
    expect(noteText(ko, { type: 'note', text: 'no code' })).toBe('no code');
    expect(noteText(ko, { type: 'note', text: 'half', code: 'command_model', params: { name: 'A' } })).toBe(
      'half',
    );
  });

  it('keeps a value as written, even one that looks like a placeholder', () => {
    const rejected: NoteBlock = {
      type: 'note',
      text: 'admin rejected hal_server_delete: {tool}',
      code: 'action_rejected',
      params: { operator: 'admin', tool: 'hal_server_delete', reason: '{tool}' },
    };
    expect(noteText(ko, rejected)).toBe('admin님이 hal_server_delete을(를) 거절했습니다: {tool}');
  });

  it('lists /help with each description in the reader language, one command a line', () => {
    const help: NoteBlock = {
      type: 'note',
      text: '/help — List the slash commands.\n/model <name> — …\n/gone — …',
      code: 'command_help',
      params: { commands: '/help\n/model <name>\n/gone' },
    };
    expect(noteText(ko, help).split('\n')).toEqual([
      `/help — ${ko('panel_command_help')}`,
      `/model <name> — ${ko('panel_command_model')}`,
      // A command this version does not know keeps its usage line.
      '/gone',
    ]);
    expect(noteText(en, help).split('\n')[0]).toBe('/help — List the slash commands.');
  });

  it('describes a slash command in the reader language, with the server text for an unknown one', () => {
    expect(commandDescription(ko, 'reset', 'Start a new conversation.')).toBe(ko('panel_command_reset'));
    expect(commandDescription(en, 'deploy', 'x')).toBe('Propose a deployment.');
    expect(commandDescription(ko, 'brand_new', 'Server text.')).toBe('Server text.');
  });

  it('renders the note of a system message in the panel language', () => {
    const element = renderMessage(
      createTestContext([]),
      testMessage({ role: 'system', connectionId: null, content: [model] }),
    );
    expect(element.querySelector('.hal-note[data-code=command_model]')?.textContent).toBe(
      'Claude: 이제 m-2 모델을 사용합니다.',
    );
  });
});
