/**
 * When a turn's model requests are sent. The engine asks its scheduler before every model call of a turn (the
 * first and each continuation after read tools), once everything the call depends on is stored (the operator's
 * message, the turn, the streaming placeholder), and the call holds its slot until the response has been read to
 * the end. The default sends at once. A host that wants another policy (at most N requests in flight per
 * provider, one room at a time, priorities) supplies its own; rooms never look at how or when a transport writes
 * a request.
 */

/** What is about to call a model. */
export interface ScheduledModelCall {
  roomId: string;
  connectionId: string;
  turnId: string;
  /** The call's index within its turn: 0 first, then one more after each round of read tools. */
  step: number;
  /** Aborted when the turn is cancelled; a scheduler should stop waiting then (the call fails as cancelled). */
  signal: AbortSignal;
}

/** Decides when model calls run. */
export interface TurnScheduler {
  /**
   * Runs `call` (one model request, streamed to its end) when the policy allows, and settles with it. It must run
   * `call` at most once; if it rejects without running it, the turn fails with that error.
   */
  schedule<T>(request: ScheduledModelCall, call: () => Promise<T>): Promise<T>;
}

/** The default scheduler: every model call runs at once, after its rows are stored. */
export function createImmediateTurnScheduler(): TurnScheduler {
  return { schedule: (_request, call) => call() };
}
