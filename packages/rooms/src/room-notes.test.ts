import { NOTE_CODES, type NoteCode } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { fillNoteTemplate, helpNote, isKnownNote, NOTE_TEXT_EN, noteText } from './room-notes.js';
import { SLASH_COMMANDS } from './room-slash-commands.js';

const placeholders = (text: string) =>
  [...text.matchAll(/\{([a-zA-Z0-9_]+)\}/g)].map((match) => match[1]).sort();

describe('HAL notes as a code plus values', () => {
  it('gives every code an English sentence whose placeholders are exactly its params', () => {
    const codes = Object.keys(NOTE_CODES) as NoteCode[];
    expect(Object.keys(NOTE_TEXT_EN).sort()).toEqual([...codes].sort());
    const differing = codes.filter(
      (code) =>
        JSON.stringify(placeholders(NOTE_TEXT_EN[code])) !== JSON.stringify([...NOTE_CODES[code]].sort()),
    );
    expect(differing).toEqual([]);
  });

  it('renders the English text from the params', () => {
    expect(noteText({ code: 'relay_limit', params: { name: 'Claude', called: '@GPT, @Gemini' } })).toBe(
      'Claude called @GPT, @Gemini. Automatic replies stop after one relay — the next reaction waits for the operator.',
    );
    expect(noteText({ code: 'token_budget', params: { used: 1200, budget: 1000 } })).toContain(
      '(1200 of 1000 tokens',
    );
    // A value that looks like a placeholder is kept as written, never filled again.
    expect(fillNoteTemplate('{a} and {b}', { a: '{b}', b: 'two' })).toBe('{b} and two');
    expect(fillNoteTemplate('{a} and {b}', { a: 'one' })).toBe('one and {b}');
  });

  it('writes /help as the usage lines, each with its English description', () => {
    const note = helpNote();
    expect(note.code).toBe('command_help');
    expect(String(note.params.commands).split('\n')).toEqual(SLASH_COMMANDS.map((command) => command.usage));
    expect(noteText(note).split('\n')).toEqual(
      SLASH_COMMANDS.map((command) => `${command.usage} — ${command.description}`),
    );
  });

  it('knows a note only when its code is listed and its params are exactly the declared names', () => {
    expect(isKnownNote('command_model', { name: 'A', model: 'm' })).toBe(true);
    expect(isKnownNote('command_reset', {})).toBe(true);
    expect(isKnownNote('command_model', { name: 'A' })).toBe(false);
    expect(isKnownNote('command_model', { name: 'A', model: 'm', extra: 1 })).toBe(false);
    expect(isKnownNote('command_model', undefined)).toBe(false);
    expect(isKnownNote('greeting', {})).toBe(false);
    expect(isKnownNote(undefined, {})).toBe(false);
    expect(isKnownNote('toString', {})).toBe(false);
  });
});
