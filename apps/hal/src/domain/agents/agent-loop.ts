import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HalError } from '@hal-ai/spec';
import * as v from 'valibot';
import type { NodeAgent } from '../core/agent.js';
import { type ArchiveLimits, createDigestStream, DEFAULT_ARCHIVE_LIMITS } from './agent-archive.js';
import { createLocalAgent } from './agent-local.js';
import { assertServerId } from './agent-names.js';
import { AGENT_OPERATIONS, type AgentCommand, type AgentOutcome } from './agent-queue.js';

/** Settings of {@link runAgentLoop}. */
export interface AgentLoopSettings {
  /** HAL's base URL, e.g. `https://hal.example.com` (the routes live under `/agent/api`). */
  halUrl: string;
  /** This server's agent token. */
  token: string;
  /** Where releases go: `<dataDir>/agents/<serverId>/…`. */
  dataDir: string;
  /** Stops the loop: the current poll is cancelled and the promise resolves. */
  signal: AbortSignal;
  /** Receives one-line progress and problems (the `hal agent` command writes them to stderr). */
  log?: (line: string) => void;
  fetch?: typeof globalThis.fetch;
  /** Long-poll length asked of HAL (seconds, default 25). */
  waitS?: number;
  /** Reconnect backoff (ms): starts at `initialMs`, doubles up to `maxMs`, with jitter. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Commands carried out at once (default 4). */
  concurrency?: number;
  /** Makes the agent for the server id HAL names (default `createLocalAgent({serverId, dataDir})`). */
  createAgent?: (serverId: string) => NodeAgent;
  limits?: Partial<ArchiveLimits>;
  random?: () => number;
}

const commandSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  op: v.picklist(AGENT_OPERATIONS),
  args: v.record(v.string(), v.unknown()),
});
const pollSchema = v.object({ serverId: v.string(), command: v.nullable(commandSchema) });
const deployArgsSchema = v.object({
  module: v.string(),
  version: v.string(),
  sha256: v.pipe(v.string(), v.regex(/^[a-f0-9]{64}$/i)),
  size: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
const moduleArgsSchema = v.object({ module: v.string() });

/** Thrown for answers that retrying will not fix (a refused token). */
class FatalAgentError extends Error {}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The remote side of `hal agent`: long-polls HAL for commands addressed to this server, carries them out
 * with a local agent on this machine, and posts the outcomes. HAL being unreachable is retried with
 * exponential backoff; a refused token (401) ends the loop with `unauthenticated`. Resolves once `signal`
 * aborts and the commands in progress have reported.
 *
 * @example
 * const stop = new AbortController();
 * process.once('SIGTERM', () => stop.abort());
 * await runAgentLoop({ halUrl, token, dataDir: '/var/lib/hal-agent', signal: stop.signal, log: console.error });
 */
export async function runAgentLoop(settings: AgentLoopSettings): Promise<void> {
  const base = new URL('agent/api/', settings.halUrl.endsWith('/') ? settings.halUrl : `${settings.halUrl}/`);
  const fetchImpl = settings.fetch ?? globalThis.fetch;
  const log = settings.log ?? (() => {});
  const signal = settings.signal;
  const initialMs = settings.backoff?.initialMs ?? 1000;
  const maxMs = settings.backoff?.maxMs ?? 60_000;
  const random = settings.random ?? Math.random;
  const concurrency = settings.concurrency ?? 4;
  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...settings.limits };
  const headers = { authorization: `Bearer ${settings.token}` };
  const running = new Set<Promise<void>>();
  let agent: NodeAgent | undefined;
  let failures = 0;

  function agentFor(serverId: string): NodeAgent {
    if (agent?.serverId !== serverId) {
      assertServerId(serverId);
      agent = settings.createAgent?.(serverId) ?? createLocalAgent({ serverId, dataDir: settings.dataDir });
      log(`acting for server ${serverId}`);
    }
    return agent;
  }

  async function backoff(reason: string): Promise<void> {
    const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(failures, 30));
    const delay = Math.round(ceiling / 2 + (ceiling / 2) * random());
    failures += 1;
    log(`HAL unreachable (${reason}); retrying in ${(delay / 1000).toFixed(1)} s`);
    await abortableSleep(delay, signal);
  }

  async function download(serverId: string, args: v.InferOutput<typeof deployArgsSchema>): Promise<string> {
    const folder = path.join(settings.dataDir, 'agents', serverId, '.downloads');
    await fs.promises.mkdir(folder, { recursive: true });
    const file = path.join(folder, `${randomBytes(8).toString('hex')}.tar.gz`);
    const url = new URL(
      `artifacts/${encodeURIComponent(args.module)}/${encodeURIComponent(args.version)}`,
      base,
    );
    const response = await fetchImpl(url, { headers, signal });
    if (!response.ok || !response.body) {
      throw new HalError('not_found', `Artifact download refused by HAL (${response.status})`);
    }
    const digest = createDigestStream(Math.min(limits.maxArtifactBytes, args.size));
    try {
      await pipeline(
        Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
        digest,
        fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }),
      );
      const actual = digest.digest();
      if (actual.sha256 !== args.sha256.toLowerCase() || actual.size !== args.size) {
        throw new HalError('checksum_mismatch', 'Downloaded artifact does not match the release checksum');
      }
      return file;
    } catch (error) {
      await fs.promises.rm(file, { force: true });
      throw error;
    }
  }

  async function execute(serverId: string, command: AgentCommand, lines: string[]): Promise<unknown> {
    const target = agentFor(serverId);
    const stepLog = (line: string) => lines.push(line);
    switch (command.op) {
      case 'metrics':
        return target.metrics();
      case 'modules':
        return target.modules();
      case 'health':
        return target.health(v.parse(moduleArgsSchema, command.args).module);
      case 'rollback':
        return target.rollback(v.parse(moduleArgsSchema, command.args).module, stepLog);
      case 'deploy': {
        const args = v.parse(deployArgsSchema, command.args);
        stepLog(`downloading ${args.module}@${args.version}`);
        const file = await download(serverId, args);
        try {
          return await target.deploy({ ...args, path: file }, stepLog);
        } finally {
          await fs.promises.rm(file, { force: true });
        }
      }
    }
  }

  async function report(command: AgentCommand, outcome: AgentOutcome): Promise<void> {
    const url = new URL(`results/${encodeURIComponent(command.id)}`, base);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      try {
        const response = await fetchImpl(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(outcome),
        });
        // 404: HAL gave up on the command (timeout) or restarted; nobody is waiting for this answer.
        if (response.ok || response.status === 404 || response.status === 401) return;
        log(`HAL refused the result of ${command.op} ${command.id} (${response.status})`);
        if (response.status < 500) return;
      } catch (error) {
        log(`could not report ${command.op} ${command.id}: ${(error as Error).message}`);
      }
      await abortableSleep(Math.min(maxMs, initialMs * 2 ** attempt), signal);
      if (signal.aborted && attempt > 0) return;
    }
  }

  async function handle(serverId: string, command: AgentCommand): Promise<void> {
    const lines: string[] = [];
    let outcome: AgentOutcome;
    try {
      const result = await execute(serverId, command, lines);
      outcome = { ok: true, result, logs: lines };
    } catch (error) {
      const code = HalError.isInstance(error)
        ? error.code
        : v.isValiError(error)
          ? 'validation_failed'
          : 'internal_error';
      const message =
        HalError.isInstance(error) || v.isValiError(error) ? error.message : (error as Error).message;
      log(`${command.op} failed: ${message}`);
      outcome = { ok: false, error: { code, message }, logs: lines };
    }
    await report(command, outcome);
  }

  async function poll(): Promise<void> {
    const url = new URL(`next?waitS=${settings.waitS ?? 25}`, base);
    let response: Response;
    try {
      response = await fetchImpl(url, { headers, signal });
    } catch (error) {
      if (signal.aborted) return;
      await backoff((error as Error).message);
      return;
    }
    if (response.status === 401) throw new FatalAgentError('HAL refused the agent token (401)');
    if (!response.ok) {
      await response.body?.cancel();
      await backoff(`HTTP ${response.status}`);
      return;
    }
    const parsed = v.safeParse(pollSchema, await response.json().catch(() => undefined));
    if (!parsed.success) {
      await backoff('malformed answer');
      return;
    }
    if (failures > 0) log('connected to HAL');
    failures = 0;
    const { serverId, command } = parsed.output;
    if (!command) return;
    const task = handle(serverId, command).finally(() => running.delete(task));
    running.add(task);
  }

  log(`agent polling ${base.origin}`);
  try {
    while (!signal.aborted) {
      if (running.size >= concurrency) {
        await Promise.race(running);
        continue;
      }
      await poll();
    }
  } catch (error) {
    if (error instanceof FatalAgentError) {
      await Promise.allSettled(running);
      throw new HalError('unauthenticated', error.message);
    }
    throw error;
  }
  await Promise.allSettled(running);
  log('agent stopped');
}
