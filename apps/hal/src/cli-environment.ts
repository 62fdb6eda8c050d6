/** One environment variable HAL reads, as `hal --help` and the README list it. */
export interface EnvironmentVariable {
  name: string;
  /** The default, as a human reads it. */
  fallback: string;
  description: string;
}

/**
 * Every environment variable HAL (`hal serve`, `hal mcp`, `hal agent`) reads. `hal --help` prints this list and a
 * test checks that each variable the code reads is here and in the README, so none stays undocumented.
 */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'HAL_DATA_DIR', fallback: './data', description: 'database, vault key, artifacts, DR snapshots' },
  { name: 'HAL_HOST', fallback: '127.0.0.1', description: 'listen address' },
  {
    name: 'HAL_PUBLIC_URL',
    fallback: 'the listen address',
    description: 'origin browsers use (behind a proxy); other Host headers are refused',
  },
  { name: 'HAL_PORT', fallback: '7420', description: 'listen port (0 picks a free one)' },
  { name: 'HAL_REAUTH_WINDOW_S', fallback: '600', description: 'how long a password re-entry unlocks' },
  {
    name: 'HAL_PROVIDER_FIRST_BYTE_TIMEOUT_MS',
    fallback: '60000',
    description: 'a model must start answering within this',
  },
  { name: 'HAL_PROVIDER_IDLE_TIMEOUT_MS', fallback: '60000', description: 'longest pause mid-answer' },
  { name: 'HAL_VAULT_KEY', fallback: '<data>/vault.key', description: 'base64 32-byte vault master key' },
  {
    name: 'HAL_VAULT_PREVIOUS_KEY',
    fallback: 'unset',
    description: 'the previous vault key during a key rotation',
  },
  {
    name: 'HAL_TEST_PAUSE_DIR',
    fallback: 'unset',
    description: 'tests only: a folder of files that hold HAL at marked points (kill -9 tests)',
  },
  {
    name: 'HAL_DATABASE_URL',
    fallback: 'unset (SQLite in the data folder)',
    description: 'postgres://… runs every store on that PostgreSQL database (several instances)',
  },
  {
    name: 'HAL_PROVIDER_BODY_CACHE',
    fallback: '1',
    description: '0 encodes every model request body afresh (no cache of repeated parts)',
  },
  {
    name: 'HAL_DATABASE_COMPILED_QUERIES',
    fallback: '1',
    description: '0 builds every hot SQL query afresh instead of binding values to its compiled shape',
  },
  {
    name: 'HAL_DATABASE_STATEMENT_CACHE',
    fallback: '1',
    description: '0 lets SQLite prepare every statement afresh instead of reusing it per SQL text',
  },
  {
    name: 'HAL_DATABASE_PREPARED_STATEMENTS',
    fallback: '1',
    description:
      '0 sends PostgreSQL the hot queries unnamed (parsed on every call), not as prepared statements',
  },
  {
    name: 'HAL_DATABASE_SINGLE_STATEMENT_APPEND',
    fallback: '1',
    description:
      '0 appends a room message on PostgreSQL in a transaction of four round trips, not one statement',
  },
  {
    name: 'HAL_TRUST_PROXY',
    fallback: '0',
    description: '1 behind a reverse proxy: trust X-Forwarded-Proto/-For',
  },
  {
    name: 'HAL_WEB_ALLOW_PRIVATE',
    fallback: '0',
    description: '1 lets web fetches reach private and loopback addresses (tests, intranets)',
  },
  { name: 'HAL_UPLOAD_LIMIT_BYTES', fallback: '209715200', description: 'largest release upload' },
  { name: 'HAL_LOG_LEVEL', fallback: 'info (mcp: warn)', description: 'pino log level, or silent' },
  { name: 'HAL_MCP_TOOLS', fallback: 'all', description: 'hal mcp: tool preset, or custom:<a,b>' },
  { name: 'HAL_CLI_DIRS', fallback: 'unset', description: 'extra folders to find claude / codex in' },
  { name: 'CLAUDE_BIN', fallback: 'discovered', description: 'path of the claude CLI' },
  { name: 'CODEX_BIN', fallback: 'discovered', description: 'path of the codex CLI' },
  { name: 'HAL_URL', fallback: 'unset', description: 'hal agent: the HAL to connect to (or --hal)' },
  { name: 'HAL_AGENT_TOKEN', fallback: 'unset', description: 'hal agent: its token (or --token)' },
  {
    name: 'HAL_MCP_GRANT',
    fallback: 'unset',
    description: 'set by HAL for the hal mcp of a CLI run: its grant token',
  },
  { name: 'HAL_MCP_ROOM', fallback: 'unset', description: 'set by HAL with HAL_MCP_GRANT: the run’s room' },
  {
    name: 'HAL_MCP_CONNECTION',
    fallback: 'unset',
    description: 'set by HAL with HAL_MCP_GRANT: the run’s connection',
  },
  { name: 'HAL_MCP_TURN', fallback: 'unset', description: 'set by HAL with HAL_MCP_GRANT: the run’s turn' },
  {
    name: 'HTTPS_PROXY',
    fallback: 'unset',
    description: 'proxy for outbound https: calls (providers, OAuth, agent)',
  },
  {
    name: 'HTTP_PROXY',
    fallback: 'unset',
    description: 'proxy for outbound http: calls (and https: without HTTPS_PROXY)',
  },
  { name: 'NO_PROXY', fallback: 'unset', description: 'hosts called directly: a,b,.domain,host:port or *' },
];

/** The environment section of `hal --help`. */
export function environmentHelp(): string {
  const width = Math.max(...ENVIRONMENT_VARIABLES.map((variable) => variable.name.length));
  const lines = ENVIRONMENT_VARIABLES.map(
    (variable) => `  ${variable.name.padEnd(width)}  ${variable.description} (default: ${variable.fallback})`,
  );
  return `Environment:\n${lines.join('\n')}\n`;
}
