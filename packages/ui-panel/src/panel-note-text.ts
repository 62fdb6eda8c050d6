/**
 * HAL's words in a room in the reader's language: a note stored as a code plus params (spec `NOTE_CODES`) is
 * rendered from `panel_note_<code>` of the catalogue, and a slash command's description from
 * `panel_command_<name>`. What this version cannot render — an unknown code, an older note without params, a
 * sentence whose placeholders the stored params do not fill — reads as the note's stored English text.
 */
import type { ContentBlock } from '@hal-ai/spec';
import { isMessageKey, type Translator } from './i18n/index.js';

/** A stored note block. */
export type NoteBlock = Extract<ContentBlock, { type: 'note' }>;

const PLACEHOLDER = /\{([a-zA-Z0-9_]+)\}/g;

/**
 * A slash command's description in the reader's language; `fallback` (the server's English) for a command the
 * catalogue does not know.
 *
 * @example
 * commandDescription(createTranslator('ko'), 'help', 'List the slash commands.'); // '슬래시 명령 목록을 봅니다.'
 */
export function commandDescription(t: Translator, name: string, fallback: string): string {
  const key = `panel_command_${name}`;
  return isMessageKey(key) ? t(key) : fallback;
}

/** `/help`'s usage lines, each followed by its command's description in the reader's language. */
function helpLines(t: Translator, commands: string): string {
  return commands
    .split('\n')
    .map((usage) => {
      const name = /^\/([A-Za-z][A-Za-z0-9_-]*)/.exec(usage)?.[1] ?? '';
      const key = `panel_command_${name}`;
      return isMessageKey(key) ? `${usage} — ${t(key)}` : usage;
    })
    .join('\n');
}

/**
 * The text of a HAL note in the reader's language (see the module comment).
 *
 * @example
 * noteText(createTranslator('ko'), { type: 'note', text: 'Claude now uses m-2.', code: 'command_model',
 *   params: { name: 'Claude', model: 'm-2' } }); // 'Claude: 이제 m-2 모델을 사용합니다.'
 */
export function noteText(t: Translator, block: NoteBlock): string {
  const { code, params } = block;
  const key = `panel_note_${code}`;
  if (code === undefined || params === undefined || !isMessageKey(key)) return block.text;
  // Without values the translator answers the sentence itself, placeholders and all.
  const names = [...t(key).matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
  if (!names.every((name) => Object.hasOwn(params, name))) return block.text;
  const values =
    code === 'command_help' ? { ...params, commands: helpLines(t, String(params.commands)) } : params;
  return t(key, values);
}
