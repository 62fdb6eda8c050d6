/**
 * The public types of the room engine: what the app injects (participants, tool contexts, audit, limits,
 * scheduling) and what it calls. Kept apart from the parts so each part can name them without a cycle.
 */
import type {
  Action,
  ContentBlock,
  ErrorInfo,
  LanguageModel,
  PromptMessage,
  ReasoningLevel,
  RoomMessage,
  TurnStatus,
  Usage,
} from '@hal-ai/spec';
import type { ToolRegistry, ToolSelection } from '@hal-ai/tools';
import type { RoomEventHub } from './room-events.js';
import type { PageContext, ParticipantIdentity } from './room-prompt.js';
import type { RoomStore } from './room-store.js';
import type { TurnScheduler } from './room-turn-scheduler.js';

/** A value or a promise of it (callbacks of the app may be sync or async). */
export type MaybePromise<T> = T | Promise<T>;

/** A model connection taking part in rooms, as the app resolves it. */
export interface RoomParticipant {
  /** The connection id. */
  id: string;
  name: string;
  active: boolean;
  identity: ParticipantIdentity;
  /** The model instance to call (made by the app from `@hal-ai/providers`). */
  model: LanguageModel;
  /** The model id shown on messages. */
  modelId: string;
  /** Which tools this connection may use. */
  toolSelection: ToolSelection;
  /** How hard the model thinks (the connection's setting); absent or `off` asks for nothing. */
  reasoning?: ReasoningLevel;
}

/** A participant as the participant list shows it (no model needed). */
export interface RoomParticipantSummary {
  id: string;
  name: string;
  active: boolean;
  identity?: Partial<ParticipantIdentity>;
}

/** The operator acting. */
export interface RoomOperator {
  id: string;
  username: string;
}

/** What the app needs to build a tool context (`toolContext`). */
export interface ToolContextRequest {
  roomId: string;
  /** The model connection whose call this is (null for MCP requests). */
  connectionId: string | null;
  /** The turn calling a read tool (null for approvals). */
  turnId: string | null;
  /** The proposal being executed or described. */
  actionId: string | null;
  /** The operator who approved (approvals) or who started the conversation (turns), if known. */
  operator: RoomOperator | null;
  /** `turn`: a read tool called by a model; `approval`: an approved proposal; `describe`: computing impact. */
  purpose: 'turn' | 'approval' | 'describe';
}

/** An audit record the engine asks the app to write (the app redacts and chains it). */
export interface RoomAuditEntry {
  action: 'ai.action.propose' | 'ai.action.execute' | 'ai.action.reject' | 'ai.turn.failed';
  actor: `operator:${string}` | `ai:${string}` | `mcp:${string}`;
  target: string;
  details: Record<string, unknown>;
}

/** Limits of the engine. */
export interface RoomEngineLimits {
  /** Tool calls one turn may make (default 20). */
  toolCallsPerTurn?: number;
  /** How long a proposal can be approved (default 24 h). */
  proposalTtlMs?: number;
  /** Messages of history sent to a model (default 200, the most recent). */
  historyMessages?: number;
  /** Passed to the model as `maxOutputTokens`, if set. */
  maxOutputTokens?: number;
}

/** Callbacks for local slash commands that change things outside the rooms. */
export interface RoomCommandHandlers {
  /**
   * `/model <name>` in a direct room; throws e.g. `model_unavailable`. Returns the connection's name and model after
   * the switch, for the note (without it the note names the participant and the model asked for).
   */
  setModel?(
    connectionId: string,
    model: string,
    operator: RoomOperator,
  ): MaybePromise<{ name: string; model: string } | undefined>;
}

/** Which running turns to stop: every turn of a room (a reset) or of a connection (disabled or deleted). */
export type TurnScope =
  | { roomId: string; connectionId?: undefined }
  | { connectionId: string; roomId?: undefined };

/**
 * The turns other processes run over the same store (several HAL instances on one database, SPEC §15). The engine
 * aborts its own turns itself; through this it asks the others to abort theirs the same way.
 */
export interface RemoteTurns {
  /**
   * Asks the processes running turns in `scope` to stop them; resolves once those turns ended (their last writes
   * stored), or once the host stopped waiting for a process that does not answer.
   */
  stop(scope: TurnScope): Promise<void>;
}

/** Settings of {@link createRoomEngine}. */
export interface RoomEngineSettings<C> {
  store: RoomStore;
  events: RoomEventHub;
  registry: ToolRegistry<C>;
  resolveParticipant(connectionId: string): MaybePromise<RoomParticipant | undefined>;
  /** Every connection in connection order (active or not). */
  listParticipants(): MaybePromise<RoomParticipantSummary[]>;
  /** The skill document every system prompt starts with. */
  skill: string;
  toolContext(request: ToolContextRequest): MaybePromise<C>;
  clock?: () => Date;
  newId?: () => string;
  limits?: RoomEngineLimits;
  /**
   * When each model request is sent (see `room-turn-scheduler.ts`). Default: at once, once the turn's rows are
   * stored (`createImmediateTurnScheduler()`).
   */
  scheduler?: TurnScheduler;
  commands?: RoomCommandHandlers;
  /**
   * Turns of other processes on the same store: a reset stops those of its room too, and waits for them before it
   * clears the history. Absent → a reset stops this process's turns only.
   */
  remoteTurns?: RemoteTurns;
  onAudit?(entry: RoomAuditEntry): MaybePromise<void>;
  /**
   * The host's redaction of secrets (see `room-redaction.ts`): every message, live event, proposal argument,
   * model-bound prompt and audit entry of the rooms passes it. The rooms never know a secret; the host's vault does.
   * Absent → nothing is redacted.
   */
  redact?: <T>(value: T) => T;
  /**
   * With `redact`: how many trailing characters of a streamed message's text could begin a secret. Those wait for
   * the message's next delta (or its final message event), so a secret split across deltas is redacted whole.
   * Absent → every delta is redacted on its own.
   */
  redactHeld?: (text: string) => number;
  /** A turn failed with a provider error (the app may set the connection to `reauth_required`). */
  onTurnError?(connectionId: string, error: ErrorInfo): MaybePromise<void>;
  /** Errors of callbacks and background work that have nobody else to go to. */
  onError?(error: unknown): void;
}

/** Input of {@link RoomEngine.postMessage}. */
/** Options of `RoomEngine.recoverInterrupted`. */
export interface RecoverInterruptedOptions {
  /** True for a record that belongs to a process still alive (it is left as it is). Default: none is kept. */
  keep?(record: { kind: 'turn' | 'message' | 'action'; id: string }): boolean;
}

export interface PostMessageInput {
  roomId: string;
  operator: RoomOperator;
  text: string;
  context?: { page?: PageContext | string | null };
  /** Extra context blocks (e.g. fetched web pages) attached to the operator message. */
  attachments?: Array<Extract<ContentBlock, { type: 'context' }>>;
}

/** Output of {@link RoomEngine.postMessage}. */
export interface PostMessageResult {
  message: RoomMessage;
  turns: Array<{ turnId: string; connectionId: string }>;
  /** The HAL note a local slash command produced, if any. */
  note?: RoomMessage;
}

/** Input of {@link RoomEngine.createExternalProposal}. */
export interface ExternalProposalInput {
  tool: string;
  args: unknown;
  source: 'mcp';
  clientName: string;
  /** The model run this MCP server serves (the app has verified it); absent for an outside MCP client. */
  conversation?: { roomId: string; connectionId: string; turnId: string | null };
}

/** Input of {@link RoomEngine.runTurn}: one participant's turn on a prompt the caller wrote. */
export interface RunTurnInput {
  roomId: string;
  connectionId: string;
  operator: RoomOperator | null;
  /** Appended to the participant's system prompt, then `messages` (instead of the room's history). */
  brief: { system: string; messages: PromptMessage[] };
  /** `false`: no tools are declared (a debate's moderator only writes). Default: the connection's tools. */
  tools?: false;
  triggerMessageId?: string | null;
}

/** How a turn ended (see {@link RoomEngine.runTurn}). */
export interface RunTurnOutcome {
  status: TurnStatus;
  /** The text of the turn's replies, joined by newlines. */
  text: string;
  lastMessageId: string | null;
  capped: boolean;
  /** The usage the providers reported over the turn's calls (null when none did). */
  usage: Usage | null;
}

/** A turn {@link RoomEngine.runTurn} started. */
export interface RunningTurn {
  turnId: string;
  /** Settles (never rejects) when the turn ended. */
  done: Promise<RunTurnOutcome>;
  /** Cancels the turn (its call fails as `interrupted`); false when it had already ended. */
  cancel(): boolean;
}

/** Output of {@link RoomEngine.describeAction}. */
export interface ActionDescription {
  action: Action;
  impact: unknown;
  identifiers: string[];
}

/** The room engine: turns, relay, proposals and their approval. */
export interface RoomEngine {
  /**
   * Stores an operator message and its turns, then starts the turns in the background; resolves with the stored
   * message. Nothing is stored when the message is refused (addressing, inactive connection, bad command).
   */
  postMessage(input: PostMessageInput): Promise<PostMessageResult>;
  /**
   * Starts one turn of a participant on a prompt the caller wrote (the debate's moderator and speakers) in any room:
   * it streams into the room like any turn, its read tools run, its write/high calls become proposals in that room,
   * and its usage counts against the room's budget. Throws `connection_inactive` for an inactive participant.
   */
  runTurn(input: RunTurnInput): Promise<RunningTurn>;
  /** Executes a proposal exactly once (already authorised by the app) and continues the model asynchronously. */
  approveAction(input: { actionId: string; operator: RoomOperator }): Promise<Action>;
  /** Rejects a proposal; never executes it and never calls a model. */
  rejectAction(input: { actionId: string; operator: RoomOperator; reason: string }): Promise<Action>;
  /**
   * An approval request from an MCP client: a HAL note and a proposal card in the unified room — or, when the MCP
   * server is the one attached to a model's own run (a local CLI), in that turn's room, attributed to its connection
   * and turn, so that after approval the model is called again with the result like any model.
   */
  createExternalProposal(input: ExternalProposalInput): Promise<Action>;
  /** The action, its impact and identifiers, for the app's three-step dialog. */
  describeAction(actionId: string): Promise<ActionDescription>;
  /** Clears a room's history, cancels its pending proposals and stops its running turns. */
  resetRoom(roomId: string): Promise<{ cancelled: Action[] }>;
  /**
   * Start-up: running turns → `interrupted`, streaming messages and executing actions → `failed` (`interrupted`).
   * `options.keep` spares the records another live process is still working on (several instances on one
   * database: only what a stopped instance left behind is interrupted).
   */
  recoverInterrupted(
    options?: RecoverInterruptedOptions,
  ): Promise<{ turns: number; messages: number; actions: number }>;
  /** Stops the running turns of a connection (disabled or deleted); returns how many. */
  cancelTurnsOf(connectionId: string): number;
  /**
   * Stops this process's running turns in a room, as a reset does, and nothing else (another process's reset of the
   * room, through {@link RemoteTurns}); returns how many.
   */
  cancelTurnsIn(roomId: string): number;
  /** Resolves when no turn or background work is running (tests, graceful shutdown). */
  idle(): Promise<void>;
}
