import { randomUUID } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import type { ArtifactRef } from '../core/agent.js';

/** The operations a remote agent carries out — one per `NodeAgent` method. */
export type AgentOperation = 'metrics' | 'deploy' | 'rollback' | 'modules' | 'health';

/** The operations, for validation. */
export const AGENT_OPERATIONS: readonly AgentOperation[] = [
  'metrics',
  'deploy',
  'rollback',
  'modules',
  'health',
];

/** A command as the agent receives it from `GET /agent/api/next`. */
export interface AgentCommand {
  id: string;
  op: AgentOperation;
  args: Record<string, unknown>;
}

/** What the agent posts back to `POST /agent/api/results/:id`. */
export interface AgentOutcome {
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
  logs: string[];
}

/** Settings of {@link createAgentQueue}. */
export interface AgentQueueSettings {
  /** How long a command may wait for its agent to collect it before the call fails (ms, default 30 s). */
  pickupTimeoutMs?: number;
  /** How long a collected command may take to answer, per operation (ms; deploy 15 min, others 60 s). */
  resultTimeoutMs?: Partial<Record<AgentOperation, number>>;
  /** Command ids (default `randomUUID`). */
  createId?: () => string;
  /** Clock for `lastSeen` (default `Date.now`). */
  now?: () => number;
}

/** Options of {@link AgentQueue.request}. */
export interface AgentRequestOptions {
  /** The artifact a deploy command may download while it is outstanding. */
  artifact?: ArtifactRef;
}

/**
 * HAL's side of the pull model: `NodeAgent` calls become commands that wait here until the server's agent
 * collects them with a long poll, and their promises settle when the agent posts the outcome. HAL never
 * needs an agent's network address, and an agent only ever sees commands addressed to its own server.
 */
export interface AgentQueue {
  /** Queues a command for `serverId` and resolves with the agent's outcome; `agent_unavailable` on timeout. */
  request(
    serverId: string,
    op: AgentOperation,
    args: Record<string, unknown>,
    options?: AgentRequestOptions,
  ): Promise<AgentOutcome>;
  /** Hands the server's oldest queued command to its agent, waiting up to `waitMs` for one; `null` if none. */
  next(serverId: string, options: { waitMs: number; signal?: AbortSignal }): Promise<AgentCommand | null>;
  /**
   * Puts a collected command back in line, first, when the poll that carried it turned out to be dead
   * (its connection closed before the answer was written). Does nothing once the command has settled.
   */
  requeue(serverId: string, id: string): void;
  /** Settles a collected command; `not_found` unless it is outstanding and belongs to `serverId`. */
  complete(serverId: string, id: string, outcome: AgentOutcome): void;
  /** The artifact of an outstanding, collected deploy command of this server for module@version. */
  artifactFor(serverId: string, module: string, version: string): ArtifactRef | undefined;
  /** When the server's agent last polled (ms since epoch), or `null` if never. */
  lastSeen(serverId: string): number | null;
}

interface Entry {
  serverId: string;
  command: AgentCommand;
  artifact: ArtifactRef | undefined;
  state: 'queued' | 'delivered';
  timer: ReturnType<typeof setTimeout> | undefined;
  resolve(outcome: AgentOutcome): void;
  reject(error: HalError): void;
}

interface Waiter {
  deliver(command: AgentCommand | null): void;
}

const DEFAULT_RESULT_TIMEOUT_MS: Record<AgentOperation, number> = {
  metrics: 60_000,
  modules: 60_000,
  health: 60_000,
  rollback: 120_000,
  deploy: 15 * 60_000,
};

/**
 * Creates the in-memory command queue behind remote agents. It lives in one HAL process: a command is
 * answered by the agent polling that process (several HAL instances would need a shared queue).
 */
export function createAgentQueue(settings: AgentQueueSettings = {}): AgentQueue {
  const pickupTimeoutMs = settings.pickupTimeoutMs ?? 30_000;
  const resultTimeoutMs = { ...DEFAULT_RESULT_TIMEOUT_MS, ...settings.resultTimeoutMs };
  const createId = settings.createId ?? randomUUID;
  const now = settings.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const queued = new Map<string, Entry[]>();
  const waiters = new Map<string, Waiter[]>();
  const seen = new Map<string, number>();

  function unavailable(entry: Entry, what: string, ms: number): void {
    entries.delete(entry.command.id);
    const list = queued.get(entry.serverId);
    if (list) {
      const index = list.indexOf(entry);
      if (index >= 0) list.splice(index, 1);
    }
    entry.reject(
      new HalError(
        'agent_unavailable',
        `The agent of server ${entry.serverId} ${what} within ${Math.round(ms / 1000)} s`,
        {
          details: { serverId: entry.serverId, op: entry.command.op },
        },
      ),
    );
  }

  function deliver(entry: Entry, waiter: Waiter): void {
    clearTimeout(entry.timer);
    entry.state = 'delivered';
    const ms = resultTimeoutMs[entry.command.op];
    entry.timer = setTimeout(() => unavailable(entry, 'did not answer', ms), ms);
    entry.timer.unref?.();
    waiter.deliver(entry.command);
  }

  /**
   * Hands `entry` to a poll that waits for its server, or else queues it (at the back, or at the `front`) until a poll
   * collects it within the pickup timeout.
   */
  function offer(entry: Entry, place: 'back' | 'front'): void {
    const waiter = waiters.get(entry.serverId)?.shift();
    if (waiter) {
      deliver(entry, waiter);
      return;
    }
    entry.timer = setTimeout(
      () => unavailable(entry, 'did not collect the command', pickupTimeoutMs),
      pickupTimeoutMs,
    );
    entry.timer.unref?.();
    const list = queued.get(entry.serverId) ?? [];
    if (place === 'front') list.unshift(entry);
    else list.push(entry);
    queued.set(entry.serverId, list);
  }

  return {
    request(serverId, op, args, options = {}) {
      return new Promise<AgentOutcome>((resolve, reject) => {
        const entry: Entry = {
          serverId,
          command: { id: createId(), op, args },
          artifact: options.artifact,
          state: 'queued',
          timer: undefined,
          resolve,
          reject,
        };
        entries.set(entry.command.id, entry);
        offer(entry, 'back');
      });
    },

    next(serverId, options) {
      seen.set(serverId, now());
      return new Promise<AgentCommand | null>((resolve) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const list = waiters.get(serverId) ?? [];
        const leave = () => {
          const index = list.indexOf(waiter);
          if (index >= 0) list.splice(index, 1);
        };
        // A poll whose connection dropped must not swallow a command, so it leaves the line at once.
        const onAbort = () => {
          leave();
          waiter.deliver(null);
        };
        const waiter: Waiter = {
          deliver: (command) => {
            clearTimeout(timer);
            options.signal?.removeEventListener('abort', onAbort);
            resolve(command);
          },
        };
        const entry = queued.get(serverId)?.shift();
        if (entry) {
          deliver(entry, waiter);
          return;
        }
        if (options.signal?.aborted) {
          resolve(null);
          return;
        }
        options.signal?.addEventListener('abort', onAbort, { once: true });
        timer = setTimeout(() => {
          leave();
          waiter.deliver(null);
        }, options.waitMs);
        list.push(waiter);
        waiters.set(serverId, list);
      });
    },

    requeue(serverId, id) {
      const entry = entries.get(id);
      if (!entry || entry.serverId !== serverId || entry.state !== 'delivered') return;
      clearTimeout(entry.timer);
      entry.state = 'queued';
      // First in line again: it went out before the commands still queued.
      offer(entry, 'front');
    },

    complete(serverId, id, outcome) {
      const entry = entries.get(id);
      if (!entry || entry.serverId !== serverId || entry.state !== 'delivered') {
        throw new HalError('not_found', 'No outstanding command with this id');
      }
      seen.set(serverId, now());
      clearTimeout(entry.timer);
      entries.delete(id);
      entry.resolve(outcome);
    },

    artifactFor(serverId, module, version) {
      for (const entry of entries.values()) {
        const artifact = entry.artifact;
        if (
          entry.serverId === serverId &&
          entry.state === 'delivered' &&
          artifact &&
          artifact.module === module &&
          artifact.version === version
        ) {
          return artifact;
        }
      }
      return undefined;
    },

    lastSeen(serverId) {
      return seen.get(serverId) ?? null;
    },
  };
}
