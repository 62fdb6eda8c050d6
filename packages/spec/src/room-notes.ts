/**
 * HAL's notes in a room, as a code plus values. A note is stored once for every operator of a room, so what it says
 * is kept as a stable code and the values that fill its sentence; each reader renders it in its own language (the
 * panel from `panel_note_<code>` of its catalogue). The stored `text` is the English rendering, for the models'
 * history, MCP readers, exports and any reader that does not know the code.
 */

/** A value of a note's params: flat strings and numbers only, so every language's template can take it as is. */
export type NoteParamValue = string | number;

/** The values of a note, by the names of its template's `{placeholders}`. */
export type NoteParams = Readonly<Record<string, NoteParamValue>>;

/**
 * Every code of a note HAL writes, with the names of the params it carries — exactly the placeholders of the
 * note's template in every language. A new note adds its code here first; the catalogues then fail to compile (or
 * their test fails) until it has a sentence in each language.
 *
 * - `command_help`: `commands` is the usage line of each command, one a line (`/help`, `/model <name>`, …); a
 *   reader adds each command's description in its language.
 * - `command_tools`: `tools` is one line a participant, `Name: tool (risk), …` (`—` when it has none): names only.
 * - `action_failed`, `wiki_publish_failed*`, `debate_verdict_invalid`: `error` / `message` are the error as HAL
 *   or the provider gave it, not translated.
 *
 * @example
 * NOTE_CODES.command_model; // ['name', 'model']
 */
export const NOTE_CODES = {
  /** `/help`: the slash commands. */
  command_help: ['commands'],
  /** `/tools`: the tools enabled for each active model here. */
  command_tools: ['tools'],
  /** `/tools` with no active model. */
  command_tools_none: [],
  /** `/model <name>`: the room's connection switched model. */
  command_model: ['name', 'model'],
  /** `/reset` with nothing pending. */
  command_reset: [],
  /** `/reset` that also cancelled pending proposals. */
  command_reset_cancelled: ['cancelled'],
  /** The room's token budget is spent: no new turn starts. */
  token_budget: ['used', 'budget'],
  /** A model hit the tool-call limit of one turn. */
  tool_limit: ['name', 'limit'],
  /** A relayed reply called other models again: nothing answers automatically. */
  relay_limit: ['name', 'called'],
  /** An MCP proposal of a model HAL attached the MCP server to. */
  approval_requested: ['name', 'tool', 'risk'],
  /** An MCP proposal of an outside MCP client. */
  approval_requested_client: ['client', 'tool', 'risk'],
  /** An approved proposal ran. */
  action_executed: ['operator', 'tool'],
  /** An approved MCP proposal ran; its result is shown to the model reading the room. */
  action_executed_result: ['operator', 'tool', 'result'],
  /** An approved proposal failed. */
  action_failed: ['operator', 'tool', 'error'],
  /** The operator rejected a proposal. */
  action_rejected: ['operator', 'tool', 'reason'],
  /** A debater or the moderator is not active: the debate paused. */
  debate_paused_inactive: ['name'],
  /** A debate model call failed: the debate paused. */
  debate_paused_failed: ['name'],
  /** A debate model call was cancelled: the debate paused. */
  debate_paused_cancelled: ['name'],
  /** A debate's token budget is spent (no verdict yet). */
  debate_budget_spent: ['used', 'budget', 'round', 'maxRounds', 'version'],
  /** A debate's token budget is spent, with its last verdict (`agreed` / `disputed`: `; `-joined, `—` if none). */
  debate_budget_spent_verdict: [
    'used',
    'budget',
    'round',
    'maxRounds',
    'version',
    'level',
    'reason',
    'agreed',
    'disputed',
  ],
  /** Early rounds are carried as the moderator's summary. */
  debate_compacted: ['through'],
  /** The moderator's verdict was invalid twice: the operator is asked. */
  debate_verdict_invalid: ['error'],
  /** The moderator asks the operator a question. */
  debate_question: ['question'],
  /** The sides agreed long enough: the debate concluded. */
  debate_concluded: [],
  /** The last round was reached. */
  debate_max_rounds: ['round', 'maxRounds'],
  /** The moderator wanted to conclude too early. */
  debate_conclude_refused: ['streak', 'needed'],
  /** Wiki.js publishing works again. */
  wiki_published: [],
  /** Wiki.js publishing failed; HAL retries after `seconds` and after the next round. */
  wiki_publish_failed: ['error', 'message', 'seconds'],
  /** Wiki.js publishing failed and its retries are used up; HAL retries after the next round. */
  wiki_publish_failed_later: ['error', 'message'],
} as const satisfies Record<string, readonly string[]>;

/** The code of a note HAL writes (see {@link NOTE_CODES}). */
export type NoteCode = keyof typeof NOTE_CODES;

/** The params of a note of code `C`: one value for each name {@link NOTE_CODES} gives it. */
export type NoteParamsOf<C extends NoteCode> = {
  readonly [K in (typeof NOTE_CODES)[C][number]]: NoteParamValue;
};

/**
 * A note as HAL writes it: a code and its params, checked against each other at compile time. The room writer
 * renders its English `text` and stores the three together.
 *
 * @example
 * const note: RoomNote = { code: 'command_model', params: { name: 'Claude', model: 'claude-sonnet-4-5' } };
 */
export type RoomNote = { [C in NoteCode]: { code: C; params: NoteParamsOf<C> } }[NoteCode];
