/**
 * `ai_connections`: one model connection per row, in connection order (`position`). Never a secret:
 * keys, tokens, client secrets and PKCE verifiers live in the vault under `connection:<id>:…`.
 */
export interface AiConnectionsTable {
  id: string;
  /** Connection order (tabs, participant lists). */
  position: number;
  name: string;
  /** `anthropic | openai | gemini | openrouter | other | local-cli`. */
  provider: string;
  /** `api_key | oauth | cli`. */
  auth: string;
  base_url: string | null;
  model: string | null;
  /** JSON `string[]` of the last successful check, or null before one. */
  models: string | null;
  /** JSON `{role, traits, instructions}`. */
  identity: string;
  /** JSON `{preset, enabled}`. */
  tools: string;
  /** `off | low | medium | high` (SPEC §2). */
  reasoning: string;
  /** `active | disabled | reauth_required | error`. */
  status: string;
  last_checked_at: string | null;
  /** JSON `{code, message}` or null. */
  last_error: string | null;
  /** JSON of the OAuth client settings without the secret (endpoints, client id, scopes), or null. */
  oauth: string | null;
  /** `claude | codex` for `local-cli` connections. */
  cli_tool: string | null;
  /** JSON `{path, version, loggedIn, checkedAt}` of the last check of a `local-cli` connection, or null before one. */
  cli_check: string | null;
  created_at: string;
  updated_at: string;
}

/** A pending OAuth login: the state is stored only as its SHA-256, used once, for 10 minutes. */
export interface AiOauthStatesTable {
  /** Hex SHA-256 of the `state` parameter. */
  state_hash: string;
  connection_id: string;
  /** The operator who started the login; only they may finish it. */
  operator_id: string;
  /** The exact redirect URI of the authorization request (the code exchange repeats it). */
  redirect_uri: string;
  /** Epoch ms after which the state is refused. */
  expires_at: number;
  created_at: string;
}

/** A grant to the `hal mcp` attached to one CLI run: its proposals belong to this room, connection and turn. */
export interface AiMcpGrantsTable {
  /** Hex SHA-256 of the token the run's MCP server carries. */
  token_hash: string;
  room_id: string;
  connection_id: string;
  turn_id: string | null;
  /** Epoch ms after which the grant is refused (it is also deleted when the run ends). */
  expires_at: number;
  created_at: string;
}

/** The AI connections' tables. */
export interface AiConnectionTables {
  ai_connections: AiConnectionsTable;
  ai_oauth_states: AiOauthStatesTable;
  ai_mcp_grants: AiMcpGrantsTable;
}
