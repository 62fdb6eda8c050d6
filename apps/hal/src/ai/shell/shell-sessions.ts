import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { buildCliEnvironment, discoverCli } from '@hal-ai/providers/cli';
import { HalError } from '@hal-ai/spec';
import * as pty from 'node-pty';
import type { AuditActor, AuditInput } from '../../domain/audit/types.js';
import type { Clock } from '../../domain/core/clock.js';
import { parseInput } from '../../domain/core/core-support.js';
import type { Operator } from '../../platform/http/env.js';
import {
  SHELL_DEFAULT_SIZE,
  type ShellTool,
  shellCommandArgs,
  shellInputSchema,
  shellSizeSchema,
  shellStartSchema,
} from './shell-commands.js';

/** A login terminal session as the routes answer it (SPEC §14 "Login terminal"). */
export interface ShellView {
  id: string;
  tool: ShellTool;
  command: string;
  status: 'running' | 'exited';
  exitCode: number | null;
  startedAt: string;
  endedAt: string | null;
  /** The local CLI connection checked again when the session ends, if the start named one. */
  connectionId: string | null;
}

/** Why a session ended (audited). */
export type ShellEndReason = 'exited' | 'closed' | 'kill_all' | 'idle' | 'max_duration' | 'shutdown';

/** What a stream receives, in order; `seq` is the SSE id (a per-session cursor). */
export type ShellEvent =
  | { type: 'output'; seq: number; data: Buffer }
  | { type: 'exit'; seq: number; exitCode: number | null }
  | { type: 'connection'; seq: number; connection: unknown };

/** The part of node-pty's `spawn` the service uses; inject to observe process creation. */
export type PtySpawn = (file: string, args: string[], options: pty.IPtyForkOptions) => pty.IPty;

/** The connection operations the terminal needs: validate the named connection, check it after the end. */
export interface ShellConnections {
  get(id: string): Promise<{ provider: string; secret: unknown } | undefined>;
  check(id: string, operator: Operator): Promise<{ connection: unknown }>;
}

/** What the service is built from: only these, so a test or another host can hand over exactly them. */
export interface ShellServiceDependencies {
  audit: { append(input: AuditInput): Promise<unknown> };
  logger: {
    info(object: object, message: string): void;
    warn(object: object, message: string): void;
  };
  clock: Clock;
  /** Absent: a start that names a connection is refused (nothing to check). */
  connections?: ShellConnections;
}

/** Settings of {@link createShellService}; the defaults are SPEC §8's. */
export interface ShellServiceSettings {
  /** Read for `CLAUDE_BIN`/`CODEX_BIN`, `HAL_CLI_DIRS`, `PATH`, `LANG`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** HAL's home: the working folder and `HOME` of every session. Default `os.homedir()`. */
  homedir?: string;
  /** Finds a CLI. Default: `discoverCli` over `env` and `homedir` (`CLAUDE_BIN`/`CODEX_BIN` first). */
  discover?: (tool: ShellTool) => Promise<string | undefined>;
  spawn?: PtySpawn;
  /** Live sessions per operator. Default 3. */
  maxPerOperator?: number;
  /** A session nobody typed into (input or resize) this long is ended. Default 10 minutes. */
  idleMs?: number;
  /** No session lives longer. Default 30 minutes. */
  maxDurationMs?: number;
  /** Largest `input {data}`, in UTF-8 bytes (larger → `413 payload_too_large`). Default 64 KiB. */
  maxInputBytes?: number;
  /** Output kept for a stream that connects late or resumes, in bytes. Default 1 MiB. */
  replayBytes?: number;
  /** How long an ended session's stream can still be read (its output and exit). Default 60 s. */
  lingerMs?: number;
  /** Between SIGHUP to the process group and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
}

/** The login terminal sessions of this HAL process. */
export interface ShellService {
  /** Starts an allow-listed command in a PTY. Throws `validation_failed`, `shell_limit`, `cli_not_found`. */
  start(operator: Operator, body: unknown): Promise<ShellView>;
  /** The operator's live sessions. */
  list(operator: Operator): ShellView[];
  /** One of the operator's sessions, live or just ended (its stream is still readable); else `shell_not_found`. */
  get(operator: Operator, id: string): ShellView;
  /** Writes keys to the PTY as they are. Never stored, logged or audited. */
  input(operator: Operator, id: string, body: unknown): void;
  resize(operator: Operator, id: string, body: unknown): void;
  /**
   * Replays what is kept after `after` (an event `seq`), then follows; `done` is called once the stream has
   * nothing more to say (after `exit`, and after `connection` when one is checked). Returns the unsubscribe.
   */
  subscribe(
    operator: Operator,
    id: string,
    after: number | undefined,
    listener: (event: ShellEvent) => void,
    done: () => void,
  ): () => void;
  /** Ends one live session (its whole process group) and waits for it. */
  end(operator: Operator, id: string): Promise<void>;
  /** Ends every live session of the operator; returns how many. */
  endAll(operator: Operator): Promise<number>;
  /** Ends every session (HAL stopping) and waits for their audit entries. */
  close(): Promise<void>;
}

interface Session {
  view: ShellView;
  operator: Operator;
  process: pty.IPty;
  events: ShellEvent[];
  keptBytes: number;
  seq: number;
  listeners: Set<{ listener: (event: ShellEvent) => void; done: () => void }>;
  endReason: ShellEndReason | undefined;
  finished: boolean;
  exited: Promise<void>;
  idleTimer: NodeJS.Timeout | undefined;
  maxTimer: NodeJS.Timeout | undefined;
  killTimer: NodeJS.Timeout | undefined;
}

function notFound(id: string): HalError {
  return new HalError('shell_not_found', 'No such terminal session (it ended, or it is not yours)', {
    details: { id },
  });
}

function invalid(path: string, message: string): HalError {
  return new HalError('validation_failed', `${path}: ${message}`, {
    details: { issues: [{ path, message }] },
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // The PTY's child is a session leader (setsid): its pid is the group id, so this reaches its children too.
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * The login terminal (SPEC §8): runs ONLY an allow-listed command of the discovered `claude` / `codex`
 * binary in a real PTY (node-pty) — no shell, a minimal environment (PATH, HOME, LANG, TERM, COLUMNS,
 * LINES), HAL's home as the working folder — streams its bytes, and ends its process group on close,
 * idle, maximum duration, kill-all or shutdown. At most `maxPerOperator` live sessions per operator;
 * only processes that still run count. Start and end are audited; what is typed is never stored,
 * logged or audited. When a session that named a connection ends, that connection is checked again
 * and the result goes out on the stream as a `connection` event.
 *
 * @example
 * const shells = createShellService({ audit, logger, clock, connections }, { homedir: os.homedir() });
 * const shell = await shells.start(operator, { tool: 'claude', command: 'login', cols: 100, rows: 30 });
 */
export function createShellService(
  dependencies: ShellServiceDependencies,
  settings: ShellServiceSettings = {},
): ShellService {
  const { audit, logger, clock, connections } = dependencies;
  const env = settings.env ?? process.env;
  const home = settings.homedir ?? os.homedir();
  const discover =
    settings.discover ?? (async (tool: ShellTool) => (await discoverCli(tool, { env, homedir: home }))?.path);
  const spawn: PtySpawn = settings.spawn ?? pty.spawn;
  const maxPerOperator = settings.maxPerOperator ?? 3;
  const idleMs = settings.idleMs ?? 10 * 60_000;
  const maxDurationMs = settings.maxDurationMs ?? 30 * 60_000;
  const maxInputBytes = settings.maxInputBytes ?? 64 * 1024;
  const replayBytes = settings.replayBytes ?? 1024 * 1024;
  const lingerMs = settings.lingerMs ?? 60_000;
  const killGraceMs = settings.killGraceMs ?? 2000;

  const sessions = new Map<string, Session>();
  /** Starts between the limit check and the spawn, per operator: two quick starts cannot both pass. */
  const starting = new Map<string, number>();
  const pendingWork = new Set<Promise<unknown>>();
  let closed = false;

  const nowIso = () => new Date(clock.now()).toISOString();
  const actor = (operator: Operator): AuditActor => `operator:${operator.id}`;
  const track = (work: Promise<unknown>) => {
    const settled = work.catch(() => undefined).finally(() => pendingWork.delete(settled));
    pendingWork.add(settled);
  };

  function live(operator: Operator): Session[] {
    return [...sessions.values()].filter(
      (session) => session.operator.id === operator.id && session.view.status === 'running',
    );
  }

  /** Only the owner sees a session; `running` also refuses one that has ended. */
  function find(operator: Operator, id: string, running: boolean): Session {
    const session = sessions.get(id);
    if (!session || session.operator.id !== operator.id) throw notFound(id);
    if (running && session.view.status !== 'running') throw notFound(id);
    return session;
  }

  function emit(session: Session, event: ShellEvent): void {
    session.events.push(event);
    if (event.type === 'output') {
      session.keptBytes += event.data.length;
      // Keep the newest output only; the exit and connection events are never dropped.
      while (session.keptBytes > replayBytes) {
        const index = session.events.findIndex((candidate) => candidate.type === 'output');
        const [dropped] = session.events.splice(index, 1);
        if (dropped?.type === 'output') session.keptBytes -= dropped.data.length;
      }
    }
    for (const { listener } of session.listeners) listener(event);
  }

  function finish(session: Session): void {
    session.finished = true;
    for (const { done } of session.listeners) done();
    session.listeners.clear();
    const timer = setTimeout(() => sessions.delete(session.view.id), lingerMs);
    timer.unref();
  }

  function touch(session: Session): void {
    clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(() => void stop(session, 'idle'), idleMs);
    session.idleTimer.unref();
  }

  /** Ends the process group: SIGHUP (what closing a terminal sends), SIGKILL after the grace time. */
  function stop(session: Session, reason: ShellEndReason): Promise<void> {
    if (session.view.status === 'running' && session.endReason === undefined) {
      session.endReason = reason;
      killGroup(session.process.pid, 'SIGHUP');
      session.killTimer = setTimeout(() => killGroup(session.process.pid, 'SIGKILL'), killGraceMs);
      session.killTimer.unref();
    }
    return session.exited;
  }

  async function recheck(session: Session): Promise<void> {
    const connectionId = session.view.connectionId;
    if (connectionId === null || !connections || closed) return;
    try {
      const { connection } = await connections.check(connectionId, session.operator);
      emit(session, { type: 'connection', seq: ++session.seq, connection });
    } catch (error) {
      logger.warn(
        { shellId: session.view.id, connectionId, code: HalError.isInstance(error) ? error.code : 'error' },
        'connection check after the login terminal failed',
      );
    }
  }

  function onExit(session: Session, exitCode: number, signal: number | undefined, resolve: () => void): void {
    clearTimeout(session.idleTimer);
    clearTimeout(session.maxTimer);
    clearTimeout(session.killTimer);
    // Whatever the CLI left running in its group (a login callback server) goes with it.
    killGroup(session.process.pid, 'SIGKILL');
    const reason = session.endReason ?? 'exited';
    session.endReason = reason;
    session.view.status = 'exited';
    session.view.exitCode = signal ? null : exitCode;
    session.view.endedAt = nowIso();
    emit(session, { type: 'exit', seq: ++session.seq, exitCode: session.view.exitCode });
    logger.info(
      { shellId: session.view.id, reason, exitCode: session.view.exitCode },
      'login terminal ended',
    );
    const work = (async () => {
      try {
        await audit.append({
          actor: actor(session.operator),
          action: 'ai.shell.end',
          target: `shell:${session.view.id}`,
          details: {
            tool: session.view.tool,
            command: session.view.command,
            reason,
            exitCode: session.view.exitCode,
            connectionId: session.view.connectionId,
          },
        });
      } catch (error) {
        logger.warn({ shellId: session.view.id, err: error }, 'could not audit the end of a login terminal');
      }
      // Ending (DELETE, kill-all) waits for the audit entry, not for the connection check.
      resolve();
      await recheck(session);
      finish(session);
    })();
    track(work);
  }

  async function validateConnection(tool: ShellTool, connectionId: string): Promise<void> {
    const connection = connections ? await connections.get(connectionId) : undefined;
    const secret = connection?.secret as { cli?: boolean; tool?: string } | undefined;
    if (connection?.provider !== 'local-cli' || secret?.tool !== tool) {
      throw invalid('connectionId', `is not a local ${tool} connection`);
    }
  }

  async function start(operator: Operator, body: unknown): Promise<ShellView> {
    if (closed) throw new HalError('provider_unavailable', 'HAL is stopping');
    const input = parseInput(shellStartSchema, body);
    const reserved = starting.get(operator.id) ?? 0;
    const running = live(operator);
    if (running.length + reserved >= maxPerOperator) {
      throw new HalError(
        'shell_limit',
        `At most ${maxPerOperator} terminal sessions may run at once: close one first`,
        { details: { shells: running.map((session) => ({ ...session.view })) } },
      );
    }
    starting.set(operator.id, reserved + 1);
    try {
      if (input.connectionId !== undefined) await validateConnection(input.tool, input.connectionId);
      const file = await discover(input.tool);
      if (!file) {
        // The code has no status of its own (a check stores it on the connection); answered here it is 409.
        throw new HalError('cli_not_found', `${input.tool} was not found on this server`, {
          details: { tool: input.tool },
          status: 409,
        });
      }
      if (closed) throw new HalError('provider_unavailable', 'HAL is stopping');
      const cols = input.cols ?? SHELL_DEFAULT_SIZE.cols;
      const rows = input.rows ?? SHELL_DEFAULT_SIZE.rows;
      const processEnv = buildCliEnvironment({
        env,
        homedir: home,
        extraEnv: {
          TERM: 'xterm-256color',
          LANG: env.LANG ?? 'C.UTF-8',
          COLUMNS: String(cols),
          LINES: String(rows),
        },
      });
      // No shell: the binary itself with the command's fixed argv.
      const child = spawn(file, [...shellCommandArgs(input.tool, input.command)], {
        name: 'xterm-256color',
        cols,
        rows,
        cwd: home,
        env: processEnv,
        // Raw bytes: the browser's emulator decodes them (a UTF-8 sequence may span two reads).
        encoding: null,
      });
      const id = `sh_${randomBytes(12).toString('hex')}`;
      let resolveExited: () => void = () => {};
      const session: Session = {
        view: {
          id,
          tool: input.tool,
          command: input.command,
          status: 'running',
          exitCode: null,
          startedAt: nowIso(),
          endedAt: null,
          connectionId: input.connectionId ?? null,
        },
        operator,
        process: child,
        events: [],
        keptBytes: 0,
        seq: 0,
        listeners: new Set(),
        endReason: undefined,
        finished: false,
        exited: new Promise<void>((resolve) => {
          resolveExited = resolve;
        }),
        idleTimer: undefined,
        maxTimer: undefined,
        killTimer: undefined,
      };
      sessions.set(id, session);
      child.onData((data: string | Buffer) => {
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
        emit(session, { type: 'output', seq: ++session.seq, data: bytes });
      });
      child.onExit(({ exitCode, signal }) => onExit(session, exitCode, signal, resolveExited));
      touch(session);
      session.maxTimer = setTimeout(() => void stop(session, 'max_duration'), maxDurationMs);
      session.maxTimer.unref();
      logger.info({ shellId: id, tool: input.tool, command: input.command }, 'login terminal started');
      await audit.append({
        actor: actor(operator),
        action: 'ai.shell.start',
        target: `shell:${id}`,
        details: {
          tool: input.tool,
          command: input.command,
          cols,
          rows,
          connectionId: input.connectionId ?? null,
        },
      });
      return { ...session.view };
    } finally {
      const left = (starting.get(operator.id) ?? 1) - 1;
      if (left > 0) starting.set(operator.id, left);
      else starting.delete(operator.id);
    }
  }

  return {
    start,
    list: (operator) => live(operator).map((session) => ({ ...session.view })),
    get: (operator, id) => ({ ...find(operator, id, false).view }),
    input(operator, id, body) {
      const session = find(operator, id, true);
      const { data } = parseInput(shellInputSchema, body);
      const bytes = Buffer.byteLength(data, 'utf8');
      if (bytes > maxInputBytes) {
        throw new HalError('payload_too_large', `Terminal input is limited to ${maxInputBytes} bytes`, {
          details: { maxBytes: maxInputBytes },
        });
      }
      touch(session);
      session.process.write(data);
    },
    resize(operator, id, body) {
      const session = find(operator, id, true);
      const { cols, rows } = parseInput(shellSizeSchema, body);
      touch(session);
      session.process.resize(cols, rows);
    },
    subscribe(operator, id, after, listener, done) {
      const session = find(operator, id, false);
      for (const event of session.events) if (after === undefined || event.seq > after) listener(event);
      if (session.finished) {
        done();
        return () => {};
      }
      const entry = { listener, done };
      session.listeners.add(entry);
      return () => session.listeners.delete(entry);
    },
    async end(operator, id) {
      await stop(find(operator, id, true), 'closed');
    },
    async endAll(operator) {
      const running = live(operator);
      await Promise.all(running.map((session) => stop(session, 'kill_all')));
      return running.length;
    },
    async close() {
      closed = true;
      await Promise.all(
        [...sessions.values()]
          .filter((session) => session.view.status === 'running')
          .map((session) => stop(session, 'shutdown')),
      );
      await Promise.all([...pendingWork]);
    },
  };
}
