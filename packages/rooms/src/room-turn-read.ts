/**
 * What a turn read: the context blocks its prompts carried (pages and fetched web content attached to messages)
 * and the read tools it ran. A turn records it as it goes and hands it to every proposal it makes
 * (`room-proposals.ts`, `newProposal`): the one place where a proposal can be judged by what led to it — e.g.
 * marked as made after reading untrusted web content.
 */
import type { ContextBlock, RoomMessage } from '@hal-ai/spec';
import type { ToolRegistry } from '@hal-ai/tools';

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

/**
 * Creates a {@link TurnReadRecorder}: empty, or starting with what `inherited` read. A relayed turn inherits its
 * source turn's read: it answers a reply written from that content (a page the other model fetched reaches it as
 * that model's words), so a proposal it makes is judged as if it had read the page itself.
 */
export function createTurnRead(inherited?: TurnRead): TurnReadRecorder {
  const context: ContextBlock[] = [...(inherited?.context ?? [])];
  const tools: Array<{ name: string; ok: boolean }> = [...(inherited?.tools ?? [])];
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

/**
 * Whether a turn read web content (SPEC §10): a fetched page attached to a message in its prompts (a failed fetch
 * carries no page text and does not count), or a successful run of a tool that reaches beyond HAL (`openWorld`,
 * e.g. `web_fetch`). A proposal made by such a turn is `tainted`.
 */
export function readWebContent(read: TurnRead, registry: Pick<ToolRegistry<never>, 'get'>): boolean {
  if (read.context.some((block) => block.source === 'web' && 'text' in block)) return true;
  return read.tools.some((run) => run.ok && registry.get(run.name)?.openWorld === true);
}
