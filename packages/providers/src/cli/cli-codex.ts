import type { HalError, Usage } from '@hal-ai/spec';
import { cliError, codeForCliFailure } from './cli-errors.js';

/** Settings of {@link buildCodexArgs}. */
export interface CodexArgsSettings {
  prompt: string;
  model: string;
  /** The fresh, empty working directory of this run. */
  workDir: string;
  /** `-c` overrides that attach an MCP server (from `buildCodexMcpArgs`). */
  mcpArgs?: string[];
  /** Further `-c key=value` overrides (TOML values), e.g. a custom `model_provider`. */
  config?: Record<string, string>;
  /** Send the prompt on stdin (`-`) instead of argv. */
  promptOnStdin?: boolean;
}

/**
 * The `codex exec` command line: JSONL events, a read-only sandbox, no git requirement, no session
 * kept, and a fresh empty working directory so the agent sees nothing of HAL's own files.
 */
export function buildCodexArgs(settings: CodexArgsSettings): string[] {
  const args = [
    'exec',
    '--json',
    '-s',
    'read-only',
    '--skip-git-repo-check',
    '--ephemeral',
    '-C',
    settings.workDir,
    '-m',
    settings.model,
  ];
  for (const [key, value] of Object.entries(settings.config ?? {})) args.push('-c', `${key}=${value}`);
  args.push(...(settings.mcpArgs ?? []));
  args.push('--', settings.promptOnStdin ? '-' : settings.prompt);
  return args;
}

/** One `codex exec --json` event, as far as HAL reads it. */
export interface CodexEvent {
  type: string;
  thread_id?: string;
  message?: string;
  item?: { id?: string; type?: string; text?: string; message?: string };
  usage?: {
    input_tokens?: number;
    cached_input_tokens?: number;
    output_tokens?: number;
    reasoning_output_tokens?: number;
  };
  error?: { message?: string };
}

/** Parses one JSONL line; anything that is not a JSON event (warnings, blank lines) gives `undefined`. */
export function parseCodexLine(line: string): CodexEvent | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    return parsed && typeof (parsed as CodexEvent).type === 'string' ? (parsed as CodexEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** Usage exactly as Codex reported it in `turn.completed`. */
export function mapCodexUsage(usage: CodexEvent['usage']): Usage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cachedInputTokens: usage.cached_input_tokens,
    reasoningTokens: usage.reasoning_output_tokens,
  };
}

/**
 * Folds `codex exec --json` events into an answer. Agent messages are the text; `turn.completed`
 * ends the turn with usage; `turn.failed` ends it with an error. Top-level `error` events and
 * `error` items are often transient ("Reconnecting… 2/5") or warnings, so they are remembered and
 * only reported when the run ends without a completed turn.
 */
export class CodexEventReader {
  /** The thread id Codex gave this run. */
  threadId: string | undefined;
  usage: Usage | undefined;
  completed = false;
  failure: string | undefined;
  lastError: string | undefined;

  /** Reads one event; returns the agent-message text it carries, if any. */
  read(event: CodexEvent): string | undefined {
    switch (event.type) {
      case 'thread.started':
        this.threadId = event.thread_id;
        return undefined;
      case 'item.completed':
        if (event.item?.type === 'agent_message' && typeof event.item.text === 'string')
          return event.item.text;
        if (event.item?.type === 'error' && event.item.message) this.lastError = event.item.message;
        return undefined;
      case 'turn.completed':
        this.completed = true;
        this.usage = mapCodexUsage(event.usage);
        return undefined;
      case 'turn.failed':
        this.failure = event.error?.message ?? 'codex turn failed';
        return undefined;
      case 'error':
        if (event.message) this.lastError = event.message;
        return undefined;
      default:
        return undefined;
    }
  }

  /** The error of a finished run, or `undefined` when the turn completed and the process exited cleanly. */
  errorFor(exitCode: number | null, stderr: string): HalError | undefined {
    if (this.failure !== undefined) {
      return cliError('codex', codeForCliFailure(this.failure), this.failure);
    }
    if (this.completed && exitCode === 0) return undefined;
    const text = this.lastError ?? lastMeaningfulLine(stderr) ?? `codex exited with ${exitCode}`;
    return cliError('codex', codeForCliFailure(text), text);
  }
}

/** The last stderr line that is not Codex's routine PATH-alias warning. */
function lastMeaningfulLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) =>
        line && !line.startsWith('WARNING: proceeding') && !line.startsWith('Reading additional input'),
    );
  return lines.at(-1);
}
