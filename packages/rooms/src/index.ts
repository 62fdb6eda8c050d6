export type { CompactionInput, DocumentDiffLine, NameOf } from './debate-context.js';
export {
  debateContextText,
  diffDocumentVersions,
  estimateTokens,
  roundsToCompact,
} from './debate-context.js';
export type { DebateDefaults } from './debate-defaults.js';
export { DEBATE_DEFAULTS } from './debate-defaults.js';
export type { DebateNext, EndingInput } from './debate-ending.js';
export { decideNext, nextAgreementStreak, ROUNDS_TO_CONCLUDE } from './debate-ending.js';
export type {
  CreateDebateInput,
  DebateEngine,
  DebateEngineSettings,
  DebateMilestone,
  DebateWordsInput,
} from './debate-engine.js';
export { createDebateEngine, debateSlug } from './debate-engine.js';
export type { DebateExportInput } from './debate-export.js';
export {
  debateToMarkdown,
  roundLogMarkdown,
  verdictMarkdown,
  workingDocumentMarkdown,
} from './debate-export.js';
export { createMemoryDebateStore } from './debate-memory-store.js';
export { MODERATOR_TASKS } from './debate-prompts.js';
export type {
  DebateOperatorNote,
  DebatePatch,
  DebatePendingRound,
  DebateRecord,
  DebateRoundRecord,
  DebateStore,
} from './debate-store.js';
export { toPublicDebate, toPublicRound } from './debate-store.js';
export type { VerdictResult } from './debate-verdict.js';
export { debateVerdictSchema, parseVerdict } from './debate-verdict.js';
export type { Addressing, AddressingParticipant } from './room-addressing.js';
export { BROADCAST_WORDS, extractMentions, maskCode, parseAddressing } from './room-addressing.js';
export { budgetNote, isBudgetExhausted, usageTokens } from './room-budget.js';
export { createRoomEngine } from './room-engine.js';
export type {
  ActionDescription,
  ExternalProposalInput,
  PostMessageInput,
  PostMessageResult,
  RecoverInterruptedOptions,
  RemoteTurns,
  RoomAuditEntry,
  RoomCommandHandlers,
  RoomEngine,
  RoomEngineLimits,
  RoomEngineSettings,
  RoomOperator,
  RoomParticipant,
  RoomParticipantSummary,
  RunningTurn,
  RunTurnInput,
  RunTurnOutcome,
  ToolContextRequest,
  TurnScope,
} from './room-engine-types.js';
export type {
  RoomEventEnvelope,
  RoomEventHub,
  RoomEventHubSettings,
  RoomEventListener,
  RoomEventResume,
  RoomEventSubscribeOptions,
  RoomEventSubscription,
} from './room-events.js';
export { createRoomEventHub } from './room-events.js';
export type { MemoryRoomStoreSettings } from './room-memory-store.js';
export { createMemoryRoomStore } from './room-memory-store.js';
export { fillNoteTemplate, helpNote, isKnownNote, NOTE_TEXT_EN, noteText } from './room-notes.js';
export type { HistoryOptions, PageContext, ParticipantIdentity, SystemPromptInput } from './room-prompt.js';
export { buildHistory, buildSystemPrompt } from './room-prompt.js';
export type { RoomRedact } from './room-redaction.js';
export {
  createRedactingDebateStore,
  createRedactingEventHub,
  createRedactingRoomStore,
} from './room-redaction.js';
export type {
  ExpandedSlashCommand,
  ParsedSlashCommand,
  SlashCommandArgument,
  SlashCommandDefinition,
} from './room-slash-commands.js';
export { expandSlashCommand, parseSlashCommand, SLASH_COMMANDS } from './room-slash-commands.js';
export type {
  ActionPatch,
  ActionRecord,
  NewActionRecord,
  NewRoomMessage,
  RoomConnectionRef,
  RoomMessagePatch,
  RoomStore,
  TurnPatch,
  TurnRecord,
} from './room-store.js';
export { toPublicAction } from './room-store.js';
export type { ScheduledModelCall, TurnScheduler } from './room-turn-scheduler.js';
export { createImmediateTurnScheduler } from './room-turn-scheduler.js';
