import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  type CallOptions,
  type GenerateResult,
  HalError,
  type LanguageModel,
  type ModelInfo,
  type ModelProvider,
  type StreamPart,
  type TextPart,
} from '@hal-ai/spec';
import {
  buildClaudeArgs,
  type ClaudeResultMessage,
  interpretClaudeRun,
  mapClaudeFinishReason,
  mapClaudeUsage,
} from './cli-claude.js';
import { buildCodexArgs, CodexEventReader, parseCodexLine } from './cli-codex.js';
import { type CliFileSystem, type CliTool, discoverCli, nodeCliFileSystem } from './cli-discovery.js';
import { cliError } from './cli-errors.js';
import {
  buildClaudeMcpArgs,
  buildClaudeMcpConfig,
  buildCodexMcpArgs,
  type CliMcpResolver,
  type CliMcpServer,
} from './cli-mcp.js';
import { readCliModelList } from './cli-model-list.js';
import { CLI_DEFAULT_MODEL } from './cli-models.js';
import {
  buildCliEnvironment,
  type CliEnvironmentSettings,
  type CliProcessResult,
  type CliSpawn,
  runCliProcess,
} from './cli-process.js';
import { flattenPromptForCli } from './cli-prompt.js';

/** Settings of {@link createCliProvider}. */
export interface CliProviderSettings extends CliEnvironmentSettings {
  tool: CliTool;
  /** The executable; discovered (`discoverCli`) on each call when absent. */
  binPath?: string;
  /** The connection's default model; listed by `listModels()`. */
  model?: string;
  /** Replaces the list `readCliModelList` reads (Codex's own cache; Claude Code's aliases). */
  models?: string[];
  /** Kills the CLI after this long (SIGTERM, then SIGKILL). Default 300 000 ms. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Attaches an MCP server (HAL's) to every run: the same one, or one per call (see {@link CliMcpResolver}). */
  mcp?: CliMcpServer | CliMcpResolver;
  /** Claude only: extra arguments placed before the prompt. */
  extraArgs?: string[];
  /** Codex only: extra `-c key=value` overrides (values are TOML). */
  codexConfig?: Record<string, string>;
  /** Prompts longer than this many bytes go through stdin instead of argv. Default 100 000. */
  maxArgumentPromptBytes?: number;
  /** Parent of each run's fresh working directory. Default `os.tmpdir()`. */
  tmpDir?: string;
  spawn?: CliSpawn;
  fs?: CliFileSystem;
}

const PROVIDER = 'local-cli';

interface RunSettings {
  options: CallOptions;
  streaming: boolean;
  onLine: (line: string) => void;
}

/**
 * A {@link ModelProvider} backed by a local `claude` or `codex` CLI logged in on the server. Each call
 * runs the CLI once, ephemerally, in a fresh empty directory, with a minimal environment; the prompt
 * is flattened into one text. Failures arrive as `error` parts (`cli_not_found`, `cli_not_logged_in`
 * with a login hint, `provider_auth`, `provider_timeout`, `provider_bad_response`, …), never as text.
 * Node-only (`@hal-ai/providers/cli`).
 *
 * @example
 * const provider = createCliProvider({ tool: 'claude', model: 'sonnet', timeoutMs: 120_000 });
 * const model = provider.languageModel('sonnet');
 * const { content } = await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
 */
export function createCliProvider(settings: CliProviderSettings): ModelProvider {
  if (settings.tool !== 'claude' && settings.tool !== 'codex') {
    throw new HalError('validation_failed', `Unknown CLI tool: ${String(settings.tool)}`);
  }
  return {
    provider: PROVIDER,
    languageModel: (modelId) =>
      createCliLanguageModel(settings, modelId || settings.model || CLI_DEFAULT_MODEL[settings.tool]),
    async listModels() {
      const ids = [
        ...(settings.models ??
          (await readCliModelList(settings.tool, { env: buildCliEnvironment(settings) })).models),
      ];
      if (settings.model && !ids.includes(settings.model)) ids.unshift(settings.model);
      return ids.map((id): ModelInfo => ({ id }));
    },
  };
}

function createCliLanguageModel(settings: CliProviderSettings, modelId: string): LanguageModel {
  const tool = settings.tool;

  async function resolveBinary(): Promise<string | HalError> {
    if (settings.binPath) return settings.binPath;
    const found = await discoverCli(tool, { env: settings.env, homedir: settings.homedir, fs: settings.fs });
    return found?.path ?? cliError(tool, 'cli_not_found', `${tool} was not found on this server`);
  }

  /** Runs the CLI once; returns the process result or an error that stopped it from running. */
  async function run({ options, streaming, onLine }: RunSettings): Promise<CliProcessResult | HalError> {
    const binary = await resolveBinary();
    if (HalError.isInstance(binary)) return binary;
    const fs = settings.fs ?? nodeCliFileSystem;
    if (settings.binPath && !(await fs.isExecutable(settings.binPath))) {
      return cliError(tool, 'cli_not_found', `${settings.binPath} is not an executable file`);
    }
    const { system, conversation } = flattenPromptForCli(options.prompt);
    const workDir = await mkdtemp(path.join(settings.tmpDir ?? os.tmpdir(), `hal-${tool}-`));
    let mcp: CliMcpServer | undefined;
    try {
      mcp =
        typeof settings.mcp === 'function'
          ? await settings.mcp(options.conversation ? { conversation: options.conversation } : {})
          : settings.mcp;
      const fullPrompt = tool === 'codex' && system ? `${system}\n\n${conversation}` : conversation;
      const promptOnStdin = Buffer.byteLength(fullPrompt) > (settings.maxArgumentPromptBytes ?? 100_000);
      let args: string[];
      if (tool === 'claude') {
        let mcpArgs: string[] | undefined;
        if (mcp) {
          const configPath = path.join(workDir, 'hal-mcp.json');
          await writeFile(configPath, JSON.stringify(buildClaudeMcpConfig(mcp)), { mode: 0o600 });
          await chmod(configPath, 0o600);
          mcpArgs = buildClaudeMcpArgs(mcp, configPath);
        }
        args = buildClaudeArgs({
          prompt: fullPrompt,
          system,
          model: modelId,
          outputFormat: streaming ? 'stream-json' : 'json',
          mcpArgs,
          extraArgs: settings.extraArgs,
          promptOnStdin,
        });
      } else {
        args = buildCodexArgs({
          prompt: fullPrompt,
          model: modelId,
          workDir,
          mcpArgs: mcp ? buildCodexMcpArgs(mcp) : undefined,
          config: settings.codexConfig,
          promptOnStdin,
        });
      }
      const result = await runCliProcess({
        command: binary,
        args,
        env: buildCliEnvironment(settings),
        cwd: workDir,
        timeoutMs: settings.timeoutMs ?? 300_000,
        killGraceMs: settings.killGraceMs,
        abortSignal: options.abortSignal,
        spawn: settings.spawn,
        onStdoutLine: onLine,
        stdin: promptOnStdin ? fullPrompt : undefined,
      });
      if (result.spawnError) {
        const code = (result.spawnError as NodeJS.ErrnoException).code;
        return cliError(
          tool,
          code === 'ENOENT' || code === 'EACCES' ? 'cli_not_found' : 'provider_bad_response',
          `${tool} could not be started: ${result.spawnError.message}`,
          result.spawnError,
        );
      }
      if (result.aborted) return new HalError('interrupted', `${tool} was stopped: the call was aborted`);
      if (result.timedOut) {
        return cliError(
          tool,
          'provider_timeout',
          `${tool} did not finish within ${settings.timeoutMs ?? 300_000} ms`,
        );
      }
      return result;
    } finally {
      await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
      await Promise.resolve(mcp?.release?.()).catch(() => undefined);
    }
  }

  async function doGenerate(options: CallOptions): Promise<GenerateResult> {
    if (tool === 'codex') return collect(await doStream(options));
    const outcome = await run({ options, streaming: false, onLine: () => undefined });
    if (HalError.isInstance(outcome)) throw outcome;
    const judged = interpretClaudeRun(outcome);
    if (!judged.ok) throw judged.error;
    return claudeGenerateResult(judged.result, modelId);
  }

  async function doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }> {
    const cancel = new AbortController();
    const abortSignal = options.abortSignal
      ? AbortSignal.any([options.abortSignal, cancel.signal])
      : cancel.signal;
    // Set on close and on cancel: a cancelled stream throws on enqueue, and the killed run still reports.
    let closed = false;
    const stream = new ReadableStream<StreamPart>({
      start(controller) {
        const emit = (part: StreamPart) => {
          if (!closed) controller.enqueue(part);
        };
        const close = () => {
          if (!closed) {
            closed = true;
            controller.close();
          }
        };
        emit({ type: 'stream-start' });
        const parser =
          tool === 'claude'
            ? createClaudeStreamParser(emit, modelId)
            : createCodexStreamParser(emit, modelId);
        void run({ options: { ...options, abortSignal }, streaming: true, onLine: parser.line })
          .then((outcome) => {
            if (HalError.isInstance(outcome)) emit({ type: 'error', error: outcome });
            else parser.end(outcome);
          })
          .catch((error: unknown) => {
            emit({ type: 'error', error: cliError(tool, 'provider_bad_response', String(error), error) });
          })
          .finally(close);
      },
      cancel() {
        closed = true;
        cancel.abort();
      },
    });
    return { stream };
  }

  return { provider: PROVIDER, modelId, doGenerate, doStream };
}

function claudeGenerateResult(result: ClaudeResultMessage, modelId: string): GenerateResult {
  const content: TextPart[] = result.result ? [{ type: 'text', text: result.result }] : [];
  const usage = mapClaudeUsage(result.usage);
  return {
    content,
    finishReason: mapClaudeFinishReason(result.stop_reason),
    ...(usage ? { usage } : {}),
    response: { id: result.session_id, modelId },
  };
}

interface StreamParser {
  line(line: string): void;
  end(result: CliProcessResult): void;
}

function createClaudeStreamParser(emit: (part: StreamPart) => void, modelId: string): StreamParser {
  let messageCount = 0;
  let sawText = false;
  let sawMetadata = false;
  const openBlocks = new Set<string>();
  return {
    line(line) {
      let event: {
        type?: string;
        parent_tool_use_id?: string | null;
        session_id?: string;
        event?: {
          type?: string;
          index?: number;
          content_block?: { type?: string };
          delta?: { type?: string; text?: string };
        };
      };
      try {
        event = JSON.parse(line);
      } catch {
        return;
      }
      // Subagent traffic carries a parent id; only the main conversation is HAL's answer.
      if (event.type !== 'stream_event' || event.parent_tool_use_id || !event.event) return;
      const inner = event.event;
      if (inner.type === 'message_start') {
        messageCount += 1;
        if (!sawMetadata) {
          sawMetadata = true;
          emit({ type: 'response-metadata', id: event.session_id, modelId });
        }
      } else if (inner.type === 'content_block_start' && inner.content_block?.type === 'text') {
        const id = `${messageCount}:${inner.index}`;
        openBlocks.add(id);
        emit({ type: 'text-start', id });
      } else if (inner.type === 'content_block_delta' && inner.delta?.type === 'text_delta') {
        const id = `${messageCount}:${inner.index}`;
        if (openBlocks.has(id) && inner.delta.text) {
          sawText = true;
          emit({ type: 'text-delta', id, delta: inner.delta.text });
        }
      } else if (inner.type === 'content_block_stop') {
        const id = `${messageCount}:${inner.index}`;
        if (openBlocks.delete(id)) emit({ type: 'text-end', id });
      }
    },
    end(result) {
      for (const id of openBlocks) emit({ type: 'text-end', id });
      openBlocks.clear();
      const judged = interpretClaudeRun(result);
      if (!judged.ok) {
        emit({ type: 'error', error: judged.error });
        return;
      }
      // Without partial messages (older CLIs) the text only arrives in the result.
      if (!sawText && judged.result.result) {
        emit({ type: 'text-start', id: 'result' });
        emit({ type: 'text-delta', id: 'result', delta: judged.result.result });
        emit({ type: 'text-end', id: 'result' });
      }
      const usage = mapClaudeUsage(judged.result.usage);
      emit({
        type: 'finish',
        finishReason: mapClaudeFinishReason(judged.result.stop_reason),
        ...(usage ? { usage } : {}),
      });
    },
  };
}

function createCodexStreamParser(emit: (part: StreamPart) => void, modelId: string): StreamParser {
  const reader = new CodexEventReader();
  let count = 0;
  return {
    line(line) {
      const event = parseCodexLine(line);
      if (!event) return;
      const text = reader.read(event);
      if (event.type === 'thread.started') emit({ type: 'response-metadata', id: reader.threadId, modelId });
      if (text !== undefined) {
        count += 1;
        const id = event.item?.id ?? `message-${count}`;
        emit({ type: 'text-start', id });
        // Consecutive agent messages are separate paragraphs of one answer.
        emit({ type: 'text-delta', id, delta: count > 1 ? `\n\n${text}` : text });
        emit({ type: 'text-end', id });
      }
    },
    end(result) {
      const error = reader.errorFor(result.exitCode, result.stderr);
      if (error) {
        emit({ type: 'error', error });
        return;
      }
      emit({ type: 'finish', finishReason: 'stop', ...(reader.usage ? { usage: reader.usage } : {}) });
    },
  };
}

/** Collects a stream into a `GenerateResult`; an `error` part rejects with its `HalError`. */
async function collect({ stream }: { stream: ReadableStream<StreamPart> }): Promise<GenerateResult> {
  const reader = stream.getReader();
  let text = '';
  const result: GenerateResult = { content: [], finishReason: 'unknown' };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'text-delta') text += value.delta;
    else if (value.type === 'response-metadata') result.response = { id: value.id, modelId: value.modelId };
    else if (value.type === 'error') throw value.error;
    else if (value.type === 'finish') {
      result.finishReason = value.finishReason;
      if (value.usage) result.usage = value.usage;
    }
  }
  if (text) result.content.push({ type: 'text', text });
  return result;
}
