import type { Generated } from 'kysely';

/** `ai_rooms`: the unified room, one direct room per connection, and the debate rooms. */
export interface AiRoomsTable {
  id: string;
  kind: 'unified' | 'direct' | 'debate';
  /** Null for the unified room. Unique, so a connection never gets two rooms. */
  connection_id: string | null;
  /** The connection's name as last seen: the title unless the operator renamed the room. */
  connection_name: string | null;
  /** The operator's title, or null for "use the connection name". */
  custom_title: string | null;
  position: number;
  /** The last `seq` handed out in this room (messages and action changes share it). */
  last_seq: number;
  created_at: string;
  /** Tokens the room may spend (provider-reported); null: no budget. */
  token_budget: number | null;
  /** Tokens the providers reported for this room's model calls. */
  tokens_used: Generated<number>;
}

/** `ai_messages`: room messages; JSON columns hold content blocks, error and usage. */
export interface AiMessagesTable {
  /** The HAL process working on it (running, streaming, executing), see `hal_instances`. */
  instance_id: string | null;
  id: string;
  room_id: string;
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  connection_id: string | null;
  model: string | null;
  content_json: string;
  status: 'streaming' | 'complete' | 'incomplete' | 'failed';
  error_json: string | null;
  relay_depth: number;
  relayed_from: string | null;
  usage_json: string | null;
  created_at: string;
}

/** `ai_turns`: one participant answering one trigger. */
export interface AiTurnsTable {
  /** The HAL process working on it (running, streaming, executing), see `hal_instances`. */
  instance_id: string | null;
  id: string;
  room_id: string;
  connection_id: string;
  status: 'running' | 'awaiting_approval' | 'complete' | 'failed' | 'cancelled' | 'interrupted';
  relay_depth: number;
  relayed_from: string | null;
  trigger_message_id: string | null;
  error_json: string | null;
  created_at: string;
  updated_at: string;
}

/** `ai_actions`: proposals; the proposal columns never change, only the decision columns do. */
export interface AiActionsTable {
  /** The HAL process working on it (running, streaming, executing), see `hal_instances`. */
  instance_id: string | null;
  id: string;
  room_id: string;
  connection_id: string | null;
  source: 'model' | 'mcp';
  tool: string;
  args_json: string;
  risk: 'read' | 'write' | 'high';
  identifiers_json: string;
  status: 'proposed' | 'executing' | 'executed' | 'failed' | 'rejected' | 'cancelled';
  created_at: string;
  decided_by: string | null;
  decided_at: string | null;
  result_json: string;
  error_json: string | null;
  args_canonical: string;
  args_hash: string;
  expires_at: string | null;
  tool_call_id: string | null;
  turn_id: string | null;
  client_name: string | null;
  reason: string | null;
  change_seq: number;
  /** 1 when the proposing turn read web content (SPEC §14 `tainted`). */
  tainted: number;
}

/** The AI rooms' tables. */
export interface AiRoomsTables {
  ai_rooms: AiRoomsTable;
  ai_messages: AiMessagesTable;
  ai_turns: AiTurnsTable;
  ai_actions: AiActionsTable;
}
