import type { FinishReason, HalError, Usage } from '@hal-ai/spec';
import { cliError, codeForCliFailure } from './cli-errors.js';
import type { CliProcessResult } from './cli-process.js';

/** Settings of {@link buildClaudeArgs}. */
export interface ClaudeArgsSettings {
  prompt: string;
  system?: string;
  model: string;
  /** `json` for one answer, `stream-json` for live text deltas. */
  outputFormat: 'json' | 'stream-json';
  /** Arguments that attach an MCP server (from `buildClaudeMcpArgs`). */
  mcpArgs?: string[];
  /** Passed through before the prompt, e.g. `['--effort', 'low']`. */
  extraArgs?: string[];
  /** Send the prompt on stdin instead of argv (long prompts; keeps it out of `ps`). */
  promptOnStdin?: boolean;
}

/**
 * The `claude -p` command line. Built-in tools are switched off (`--tools ""`): HAL uses the CLI for
 * conversation and analysis, and any action goes through HAL's MCP server and its approvals. The
 * session is not persisted, and the prompt comes after `--` so a prompt that starts with `-` is
 * never read as an option.
 */
export function buildClaudeArgs(settings: ClaudeArgsSettings): string[] {
  const args = ['-p', '--output-format', settings.outputFormat];
  if (settings.outputFormat === 'stream-json') args.push('--verbose', '--include-partial-messages');
  args.push('--model', settings.model, '--no-session-persistence', '--tools', '');
  if (settings.system) args.push('--append-system-prompt', settings.system);
  args.push(...(settings.mcpArgs ?? []), ...(settings.extraArgs ?? []));
  if (!settings.promptOnStdin) args.push('--', settings.prompt);
  return args;
}

/** The final `{"type":"result", …}` object of a `claude -p` run (JSON, or the last stream-json line). */
export interface ClaudeResultMessage {
  type: 'result';
  subtype?: string;
  is_error?: boolean;
  api_error_status?: number | null;
  result?: string;
  stop_reason?: string | null;
  session_id?: string;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
  };
}

function parseJsonLine(line: string): unknown {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

/**
 * Finds the result object in `claude` stdout. Parses JSON lines rather than taking the first line,
 * because some setups (e.g. `NODE_EXTRA_CA_CERTS`) print a notice before it.
 */
export function findClaudeResult(stdout: string): ClaudeResultMessage | undefined {
  const lines = stdout.split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const parsed = parseJsonLine(lines[index] ?? '');
    if (parsed && (parsed as { type?: unknown }).type === 'result') return parsed as ClaudeResultMessage;
  }
  const whole = parseJsonLine(stdout);
  return whole && (whole as { type?: unknown }).type === 'result'
    ? (whole as ClaudeResultMessage)
    : undefined;
}

/** Usage exactly as Claude Code reported it (no totals are invented). */
export function mapClaudeUsage(usage: ClaudeResultMessage['usage']): Usage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cachedInputTokens: usage.cache_read_input_tokens,
  };
}

/** The finish reason of an Anthropic `stop_reason`. */
export function mapClaudeFinishReason(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    case undefined:
    case null:
      return 'unknown';
    default:
      return 'other';
  }
}

/**
 * Judges a finished `claude -p` process: the answer, or the error. `is_error: true` counts as a
 * failure even when `subtype` says `success` (that is how Claude Code reports API errors), and so
 * does any non-zero exit.
 */
export function interpretClaudeRun(
  process: CliProcessResult,
): { ok: true; result: ClaudeResultMessage } | { ok: false; error: HalError } {
  const result = findClaudeResult(process.stdout);
  if (result && result.is_error !== true && process.exitCode === 0) return { ok: true, result };
  const text = result?.result || process.stderr || process.stdout || `claude exited with ${process.exitCode}`;
  const code = codeForCliFailure(text, result?.api_error_status);
  return { ok: false, error: cliError('claude', code, text) };
}
