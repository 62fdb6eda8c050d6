export type { Addressing, AddressingParticipant } from './room-addressing.js';
export { BROADCAST_WORDS, extractMentions, maskCode, parseAddressing } from './room-addressing.js';
export { createRoomEngine } from './room-engine.js';
export type {
  ActionDescription,
  ExternalProposalInput,
  PostMessageInput,
  PostMessageResult,
  RoomAuditEntry,
  RoomCommandHandlers,
  RoomEngine,
  RoomEngineLimits,
  RoomEngineSettings,
  RoomOperator,
  RoomParticipant,
  RoomParticipantSummary,
  ToolContextRequest,
} from './room-engine-types.js';
export type {
  RoomEventEnvelope,
  RoomEventHub,
  RoomEventHubSettings,
  RoomEventListener,
  RoomEventResume,
  RoomEventSubscription,
} from './room-events.js';
export { createRoomEventHub } from './room-events.js';
export type { MemoryRoomStoreSettings } from './room-memory-store.js';
export { createMemoryRoomStore } from './room-memory-store.js';
export type { HistoryOptions, PageContext, ParticipantIdentity, SystemPromptInput } from './room-prompt.js';
export { buildHistory, buildSystemPrompt } from './room-prompt.js';
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
export { createImmediateTurnScheduler, createSendFirstTurnScheduler } from './room-turn-scheduler.js';
