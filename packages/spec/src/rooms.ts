import type { Debate } from './debates.js';
import type { ErrorInfo } from './errors.js';
import type { ReasoningLevel, ReasoningPart, TextPart, ToolCallPart, Usage } from './language-model.js';
import type { NoteParams } from './room-notes.js';
import type { ToolPreset, ToolRisk } from './tools.js';

/** A content block of a stored room message. */
export type ContentBlock =
  | TextPart
  | ToolCallPart
  /** A model's reasoning: kept for its provider (sent back unchanged), never shown as the answer. */
  | ReasoningPart
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: unknown; isError?: boolean }
  /**
   * A HAL note: something HAL says in the room (relay limit reached, approval result, …). `code` and `params` say it
   * in any language (see `NOTE_CODES`); `text` is its English rendering, what a reader shows for an unknown code
   * or an older note without params.
   */
  | { type: 'note'; text: string; code?: string; params?: NoteParams }
  /** A slash command the operator typed and what it was expanded into for the model. */
  | { type: 'command'; command: string; args: string[]; expansion?: string }
  /** A proposal card in the history. */
  | { type: 'action'; actionId: string }
  /** Context attached to an operator message: a web page they linked (SPEC §14), or the page they are on. */
  | ContextBlock;

/**
 * A web page an operator linked, fetched before the turn (SPEC §14). Its text is untrusted web content: prompts
 * mark it as such, and a proposal made in a turn that read it is `tainted`.
 */
export interface WebContextBlock {
  type: 'context';
  source: 'web';
  /** The URL as the operator wrote it (trailing punctuation trimmed). */
  url: string;
  /** Where the last redirect led. */
  finalUrl: string;
  title: string;
  /** Readable text of the page, capped. */
  text: string;
  /** The text was cut at the cap. */
  truncated: boolean;
  /** ISO time of the fetch (a cached page keeps its first fetch time). */
  fetchedAt: string;
}

/** A linked page that could not be fetched: the turn goes on, and the models see why (SPEC §14). */
export interface WebContextErrorBlock {
  type: 'context';
  source: 'web';
  url: string;
  error: ErrorInfo;
}

/** The page of the console the operator is on, attached as context. */
export interface PageContextBlock {
  type: 'context';
  source: 'page';
  url?: string;
  title?: string;
  text: string;
}

/** Every context block a message may carry. */
export type ContextBlock = WebContextBlock | WebContextErrorBlock | PageContextBlock;

/** Who wrote a message. */
export type MessageRole = 'user' | 'assistant' | 'tool' | 'system';

/** Lifecycle of a stored message. */
export type MessageStatus = 'streaming' | 'complete' | 'incomplete' | 'failed';

/** A room as the HTTP API shows it. */
export interface Room {
  id: string;
  /** `debate`: a debate room (SPEC §9), a tab after the direct rooms. */
  kind: 'unified' | 'direct' | 'debate';
  title: string;
  fixed: boolean;
  connectionId: string | null;
  position: number;
  /** Tokens this room may spend (provider-reported usage); `null`: no budget. Once reached, no new turn starts. */
  tokenBudget: number | null;
  /** Tokens the providers reported for this room's model calls so far. */
  tokensUsed: number;
}

/** A stored room message (SPEC §14). */
export interface RoomMessage {
  id: string;
  roomId: string;
  seq: number;
  role: MessageRole;
  connectionId: string | null;
  model: string | null;
  content: ContentBlock[];
  status: MessageStatus;
  error: ErrorInfo | null;
  relayDepth: 0 | 1;
  relayedFrom: string | null;
  usage: Usage | null;
  createdAt: string;
}

/** Status of a proposal. */
export type ActionStatus = 'proposed' | 'executing' | 'executed' | 'failed' | 'rejected' | 'cancelled';

/** A proposal (write/high tool call awaiting an operator) as the HTTP API shows it. */
export interface Action {
  id: string;
  roomId: string;
  connectionId: string | null;
  source: 'model' | 'mcp';
  tool: string;
  args: unknown;
  risk: ToolRisk;
  identifiers: string[];
  status: ActionStatus;
  createdAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  result: unknown;
  error: ErrorInfo | null;
  /**
   * Made in a turn that read web content (SPEC §14): the arguments may come from an untrusted page, so approving
   * it needs the operator's extra confirmation that they checked them.
   */
  tainted: boolean;
}

/** Status of a model turn. */
export type TurnStatus =
  | 'running'
  | 'awaiting_approval'
  | 'complete'
  | 'failed'
  | 'cancelled'
  | 'interrupted';

/** Live room events (SSE `event:` names are the `type`s). */
export type RoomEvent =
  | { type: 'message'; message: RoomMessage }
  | { type: 'delta'; messageId: string; connectionId: string; text: string }
  | { type: 'turn'; turnId: string; connectionId: string; status: TurnStatus }
  | { type: 'action'; action: Action }
  /** A debate room's debate changed (status, round, document, verdict…). */
  | { type: 'debate'; debate: Debate };

/** Providers an operator can connect. */
export type ProviderId = 'anthropic' | 'openai' | 'gemini' | 'openrouter' | 'other' | 'local-cli';

/** How a connection authenticates. */
export type AuthMethod = 'api_key' | 'oauth' | 'cli';

/** Status of a connection. */
export type ConnectionStatus = 'active' | 'disabled' | 'reauth_required' | 'error';

/** What a public view shows of a connection's secret: hints only, never the secret. */
export type SecretView =
  | { hasKey: boolean; hint: string | null }
  | { hasToken: boolean; expiresAt: string | null; hasRefresh: boolean }
  | ({ cli: true; tool: 'claude' | 'codex' } & Partial<CliCheckView>);

/**
 * What the last check of a local CLI connection found (beside `{cli: true, tool}`; absent before the first check).
 * Never the CLI's credentials: HAL reads no credential file.
 */
export interface CliCheckView {
  /** The executable that was checked (absolute), or null when none was found. */
  path: string | null;
  version: string | null;
  /** `null` when the login state could not be read. */
  loggedIn: boolean | null;
  checkedAt: string;
}

/** A model connection as the HTTP API shows it (SPEC §14). */
export interface Connection {
  id: string;
  name: string;
  provider: ProviderId;
  auth: AuthMethod;
  baseUrl: string | null;
  model: string | null;
  models: string[] | null;
  identity: { role: string; traits: string; instructions: string };
  tools: { preset: ToolPreset; enabled: string[] };
  /** How hard the connection's model thinks (SPEC §2); `off` by default. */
  reasoning: ReasoningLevel;
  status: ConnectionStatus;
  lastCheckedAt: string | null;
  lastError: ErrorInfo | null;
  secret: SecretView;
}
