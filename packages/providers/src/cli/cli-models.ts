import type { CliTool } from './cli-discovery.js';

/**
 * The models each CLI accepts with `--model`/`-m`, as bundled with Claude Code 2.1.197 and Codex
 * 0.171.0. The CLIs have no offline model-list command, so this list is static and documented; the
 * connection's configured default is always added. Claude's aliases (`sonnet`, `opus`, `haiku`)
 * resolve to the newest model of each family inside the CLI itself.
 */
export const CLI_KNOWN_MODELS: Readonly<Record<CliTool, readonly string[]>> = {
  claude: ['sonnet', 'opus', 'haiku', 'claude-sonnet-5', 'claude-opus-4-8', 'claude-haiku-4-5'],
  codex: [
    'gpt-6.2-sol',
    'gpt-6.2-astra',
    'gpt-6.1-sol',
    'gpt-6.1-terra',
    'gpt-6-sol',
    'gpt-6-astra',
    'gpt-6-luna',
    'gpt-5.6-sol',
    'gpt-5.6-terra',
    'gpt-5.6-luna',
    'gpt-5.5',
  ],
};

/** The model used when neither the call nor the connection names one. */
export const CLI_DEFAULT_MODEL: Readonly<Record<CliTool, string>> = {
  claude: 'sonnet',
  codex: 'gpt-5.5',
};

/** How to log in, shown to the operator when a CLI reports it is not logged in. */
export const CLI_LOGIN_HINT: Readonly<Record<CliTool, string>> = {
  claude: 'Log in on the server as the account HAL runs as: `claude auth login`.',
  codex: 'Log in on the server as the account HAL runs as: `codex login`.',
};
