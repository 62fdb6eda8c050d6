export type {
  Debate,
  DebateAgreementLevel,
  DebateDecision,
  DebateDocumentVersion,
  DebateRound,
  DebateStatus,
  DebateVerdict,
} from './debates.js';
export type { ErrorInfo, HalErrorCode, HalErrorOptions } from './errors.js';
export { HAL_ERROR_CODES, HAL_ERROR_STATUS, HalError } from './errors.js';
export type {
  AssistantContentPart,
  CallConversation,
  CallOptions,
  FinishReason,
  GenerateResult,
  LanguageModel,
  ModelInfo,
  ModelProvider,
  Prompt,
  PromptMessage,
  ProviderMetadata,
  ReasoningLevel,
  ReasoningPart,
  StreamPart,
  TextPart,
  ToolCallPart,
  ToolChoice,
  ToolDeclaration,
  ToolResultPart,
  Usage,
} from './language-model.js';
export { REASONING_LEVELS } from './language-model.js';
export type { NoteCode, NoteParams, NoteParamsOf, NoteParamValue, RoomNote } from './room-notes.js';
export { NOTE_CODES } from './room-notes.js';
export type {
  Action,
  ActionStatus,
  AuthMethod,
  CliCheckView,
  Connection,
  ConnectionStatus,
  ContentBlock,
  ContextBlock,
  MessageRole,
  MessageStatus,
  PageContextBlock,
  ProviderId,
  Room,
  RoomEvent,
  RoomMessage,
  SecretView,
  TurnStatus,
  WebContextBlock,
  WebContextErrorBlock,
} from './rooms.js';
export type { JsonSchema, ToolPreset, ToolRisk } from './tools.js';
export { TOOL_PRESETS, TOOL_RISKS } from './tools.js';
