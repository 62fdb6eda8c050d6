/**
 * What a turn read: the context blocks its prompts carried (pages and fetched web content attached to messages)
 * and the read tools it ran. A turn records it as it goes and hands it to every proposal it makes
 * (`room-proposals.ts`, `newProposal`): the one place where a proposal can be judged by what led to it — e.g.
 * marked as made after reading untrusted web content.
 */
import type { ContextBlock, RoomMessage } from '@hal-ai/spec';

/** What a turn read so far. */
export interface TurnRead {
  /** Context blocks of the messages in the turn's prompts, once each, in the order first seen. */
  readonly context: readonly ContextBlock[];
  /** The read tools the turn ran, in order, and whether each succeeded. */
  readonly tools: ReadonlyArray<{ name: string; ok: boolean }>;
}

/** Records a turn's {@link TurnRead}. */
export interface TurnReadRecorder {
  readonly read: TurnRead;
  /** The history a prompt was built from (messages already seen count once). */
  addHistory(messages: readonly RoomMessage[]): void;
  addToolRun(name: string, ok: boolean): void;
}

/** Creates an empty {@link TurnReadRecorder}. */
export function createTurnRead(): TurnReadRecorder {
  const context: ContextBlock[] = [];
  const tools: Array<{ name: string; ok: boolean }> = [];
  const seen = new Set<string>();
  return {
    read: { context, tools },
    addHistory(messages) {
      for (const message of messages) {
        if (seen.has(message.id)) continue;
        seen.add(message.id);
        for (const block of message.content) if (block.type === 'context') context.push(block);
      }
    },
    addToolRun(name, ok) {
      tools.push({ name, ok });
    },
  };
}
