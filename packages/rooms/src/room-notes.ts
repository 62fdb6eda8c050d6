/**
 * The English rendering of HAL's notes: the `text` stored beside a note's code and params (SPEC §3 "system (HAL
 * notes)"). Models read it in their history, MCP readers and exports show it; the panel renders the code in the
 * reader's language instead. One template per code of `NOTE_CODES`, whose placeholders are that code's params.
 */
import { NOTE_CODES, type NoteCode, type NoteParams, type RoomNote } from '@hal-ai/spec';
import { SLASH_COMMANDS } from './room-slash-commands.js';

/** The English sentence of each note code; `{name}` takes the param of that name. */
export const NOTE_TEXT_EN: Readonly<Record<NoteCode, string>> = {
  command_help: '{commands}',
  command_tools: '{tools}',
  command_tools_none: 'No active model.',
  command_model: '{name} now uses {model}.',
  command_reset: 'New conversation: history cleared.',
  command_reset_cancelled: 'New conversation: history cleared, {cancelled} pending proposal(s) cancelled.',
  token_budget:
    'This room reached its token budget ({used} of {budget} tokens, as the providers reported them): no new turn starts. Raise or remove the budget to continue.',
  tool_limit:
    '{name} reached the limit of {limit} tool calls in one turn and stopped. Send a message to let it continue.',
  relay_limit:
    '{name} called {called}. Automatic replies stop after one relay — the next reaction waits for the operator.',
  approval_requested: "{name} (through HAL's MCP server) asks for approval to run {tool} ({risk}).",
  approval_requested_client: 'MCP client {client} asks for approval to run {tool} ({risk}).',
  action_executed: '{operator} approved {tool}; it was executed.',
  action_executed_result: '{operator} approved {tool}; it was executed. Result: {result}',
  action_failed: '{operator} approved {tool}; it failed: {error}',
  action_rejected: '{operator} rejected {tool}: {reason}',
  debate_paused_inactive: '{name} is not active. The debate is paused; resume it to go on.',
  debate_paused_failed: "{name}'s model call failed. The debate is paused; resume it to go on.",
  debate_paused_cancelled: "{name}'s model call was cancelled. The debate is paused; resume it to go on.",
  debate_budget_spent:
    'The debate stopped: its token budget is spent ({used} of {budget} tokens, as the providers reported them).\nRounds completed: {round} of {maxRounds}; working document version {version}.',
  debate_budget_spent_verdict:
    'The debate stopped: its token budget is spent ({used} of {budget} tokens, as the providers reported them).\nRounds completed: {round} of {maxRounds}; working document version {version}.\nLast verdict: {level} — {reason}\nAgreed: {agreed}\nDisputed: {disputed}',
  debate_compacted:
    "Rounds 1–{through} are carried as the moderator's summary from now on (the prompts would not fit the models' context); the full round log is kept.",
  debate_verdict_invalid:
    "The moderator's verdict was not valid twice ({error}). Answer to let the moderator judge again.",
  debate_question: 'The moderator asks the operator: {question}',
  debate_concluded: 'The debate concluded: the sides agreed in two consecutive rounds.',
  debate_max_rounds: 'The debate stops after its last round ({round} of {maxRounds}).',
  debate_conclude_refused:
    'The moderator wanted to conclude, but the sides have agreed in {streak} consecutive round(s) so far; a conclusion needs {needed}. The debate continues.',
  wiki_published: 'Wiki.js: the debate pages are published again.',
  wiki_publish_failed:
    'Wiki.js publishing failed ({error}: {message}). The debate goes on; HAL tries again in {seconds} s and after the next round.',
  wiki_publish_failed_later:
    'Wiki.js publishing failed ({error}: {message}). The debate goes on; HAL tries again after the next round.',
};

const PLACEHOLDER = /\{([a-zA-Z0-9_]+)\}/g;

/** The English description of each slash command, by name (what `/help` says after the usage line). */
const DESCRIPTIONS = new Map(SLASH_COMMANDS.map((command) => [command.usage, command.description]));

/** Fills `{name}` placeholders from `params`; a missing value stays visible rather than inventing text. */
export function fillNoteTemplate(template: string, params: NoteParams): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/**
 * The English text of a note. `/help` lists each usage line with its description.
 *
 * @example
 * noteText({ code: 'command_model', params: { name: 'Claude', model: 'claude-opus-4-1' } });
 * // 'Claude now uses claude-opus-4-1.'
 */
export function noteText(note: RoomNote): string {
  if (note.code === 'command_help') {
    return note.params.commands
      .toString()
      .split('\n')
      .map((usage) => `${usage} — ${DESCRIPTIONS.get(usage) ?? ''}`.trimEnd())
      .join('\n');
  }
  return fillNoteTemplate(NOTE_TEXT_EN[note.code], note.params);
}

/** The `/help` note: the usage line of every slash command, in `/help`'s order. */
export function helpNote(): Extract<RoomNote, { code: 'command_help' }> {
  return {
    code: 'command_help',
    params: { commands: SLASH_COMMANDS.map((entry) => entry.usage).join('\n') },
  };
}

/**
 * Whether a note's params are exactly the names {@link NOTE_CODES} declares for its code: what every note HAL
 * writes satisfies (the types enforce it; stored rows and tests check it).
 */
export function isKnownNote(code: string | undefined, params: NoteParams | undefined): boolean {
  if (code === undefined || !Object.hasOwn(NOTE_CODES, code) || params === undefined) return false;
  const declared = [...NOTE_CODES[code as NoteCode]].sort();
  return JSON.stringify(Object.keys(params).sort()) === JSON.stringify(declared);
}
