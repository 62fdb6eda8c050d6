import { NOTE_TEXT_EN, SLASH_COMMANDS } from '@hal-ai/rooms';
import { NOTE_CODES, type NoteCode } from '@hal-ai/spec';
import { isMessageKey, LOCALES, MESSAGES } from '@hal-ai/ui-panel/i18n';
import { describe, expect, it } from 'vitest';

// HAL's notes are written once by the rooms (a code, its params and the English text) and said by the panel in the
// reader's language: this walks spec's code list against the one message catalogue, which no library can import
// beside the other (ui-panel takes only types from spec, and the rooms never see the panel).
const placeholders = (text: string) =>
  [...text.matchAll(/\{([a-zA-Z0-9_]+)\}/g)].map((match) => match[1]).sort();

describe('HAL notes and slash commands in the message catalogue', () => {
  it('gives every note code a sentence in each language whose placeholders are exactly its params', () => {
    const problems: string[] = [];
    for (const code of Object.keys(NOTE_CODES) as NoteCode[]) {
      const key = `panel_note_${code}`;
      if (!isMessageKey(key)) {
        problems.push(`${key}: missing`);
        continue;
      }
      const params = JSON.stringify([...NOTE_CODES[code]].sort());
      for (const locale of LOCALES) {
        if (JSON.stringify(placeholders(MESSAGES[locale][key])) !== params)
          problems.push(`${key} (${locale})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('says in English what the rooms store as the English text', () => {
    const differing = (Object.keys(NOTE_CODES) as NoteCode[]).filter(
      (code) => MESSAGES.en[`panel_note_${code}`] !== NOTE_TEXT_EN[code],
    );
    expect(differing).toEqual([]);
  });

  it('has no note sentence for a code HAL does not write', () => {
    const stale = Object.keys(MESSAGES.ko)
      .filter((key) => key.startsWith('panel_note_'))
      .filter((key) => !Object.hasOwn(NOTE_CODES, key.slice('panel_note_'.length)));
    expect(stale).toEqual([]);
  });

  it('describes every slash command in each language, the English as the server lists it', () => {
    const problems: string[] = [];
    for (const command of SLASH_COMMANDS) {
      const key = `panel_command_${command.name}`;
      if (!isMessageKey(key)) problems.push(`${key}: missing`);
      else if (MESSAGES.en[key] !== command.description) problems.push(`${key}: English differs`);
    }
    const stale = Object.keys(MESSAGES.ko)
      .filter((key) => key.startsWith('panel_command_'))
      .filter((key) => !SLASH_COMMANDS.some((command) => `panel_command_${command.name}` === key));
    expect([...problems, ...stale]).toEqual([]);
  });
});
