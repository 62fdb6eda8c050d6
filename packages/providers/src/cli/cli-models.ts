import type { CliTool } from './cli-discovery.js';

/**
 * The models Claude Code accepts with `--model`. Claude Code keeps no model list on disk and has no offline
 * list command; its aliases (`sonnet`, `opus`, `haiku`) resolve to the newest model of each family inside the CLI
 * itself, so the aliases plus the current full names (as bundled with Claude Code 2.1.197) are what HAL offers.
 * Codex has no such list in code: its models come from the CLI's own cache (see `readCliModelList`).
 */
export const CLAUDE_CODE_MODELS: readonly string[] = [
  'sonnet',
  'opus',
  'haiku',
  'claude-sonnet-5',
  'claude-opus-4-8',
  'claude-haiku-4-5',
];

/**
 * The model used when neither the call, the connection nor the CLI's own settings name one. For Codex this is
 * also the whole list when the CLI has not written its model cache yet (documented fallback).
 */
export const CLI_DEFAULT_MODEL: Readonly<Record<CliTool, string>> = {
  claude: 'sonnet',
  codex: 'gpt-5.5',
};

/** The exact command that logs a CLI in (the console shows it in `<code>`, with its own sentence around it). */
export const CLI_LOGIN_COMMAND: Readonly<Record<CliTool, string>> = {
  claude: 'claude auth login',
  codex: 'codex login',
};

/** How to log in, shown to the operator when a CLI reports it is not logged in (logs, `hal doctor`, errors). */
export const CLI_LOGIN_HINT: Readonly<Record<CliTool, string>> = {
  claude: `Log in on the server as the account HAL runs as: \`${CLI_LOGIN_COMMAND.claude}\`.`,
  codex: `Log in on the server as the account HAL runs as: \`${CLI_LOGIN_COMMAND.codex}\`.`,
};
