/**
 * Relay in the unified room: a depth-0 reply that mentions other active models (`@name`, as the operator would)
 * starts one depth-1 turn per mentioned model; a depth-1 reply's mentions only leave a HAL note (`relay_limit`),
 * so models never loop. Never the author itself, never an inactive model, at most once per (reply, model).
 *
 * The bookkeeping for "at most once" is kept only while it matters: per reply, until the turns it started end.
 */
import { extractMentions } from './room-addressing.js';
import type { MaybePromise, RoomParticipant, RoomParticipantSummary } from './room-engine-types.js';
import type { TurnRequest } from './room-turn.js';
import type { TurnRead } from './room-turn-read.js';
import type { RoomWriter } from './room-writer.js';

/** The turn whose reply may relay (its operator and page carry over to the relayed turns). */
export type RelaySource = Pick<
  TurnRequest,
  'roomId' | 'roomKind' | 'participant' | 'relayDepth' | 'participants' | 'operator' | 'page'
>;

/** A relayed turn to start. */
export interface RelayedTurn {
  target: RoomParticipant;
  /** The reply that mentioned the target. */
  sourceMessageId: string;
  /** What the turn that wrote the reply read (the relayed turn starts with it). */
  read?: TurnRead;
}

/** Settings of {@link createRelay}. */
export interface RelaySettings {
  writer: RoomWriter;
  listParticipants(): MaybePromise<RoomParticipantSummary[]>;
  resolveParticipant(connectionId: string): MaybePromise<RoomParticipant | undefined>;
  /** Starts the depth-1 turn; resolves once it is started, with `done` settling when it has ended. */
  startRelayedTurn(source: RelaySource, turn: RelayedTurn): Promise<{ done: Promise<unknown> }>;
}

/** Relay between models. */
export interface Relay {
  /** Called with a finished turn's reply text, its last message and what the turn read. */
  afterReply(source: RelaySource, text: string, sourceMessageId: string, read?: TurnRead): Promise<void>;
  /** How many replies' relays are still tracked (their relayed turns have not all ended). */
  tracked(): number;
}

/** Creates the relay of an engine. */
export function createRelay(settings: RelaySettings): Relay {
  /** Per reply, the models it relayed to and how many of those turns still run; dropped once none does. */
  const relayed = new Map<string, { targets: Set<string>; running: number }>();
  const forgetIfDone = (sourceMessageId: string) => {
    if (relayed.get(sourceMessageId)?.running === 0) relayed.delete(sourceMessageId);
  };

  return {
    tracked: () => relayed.size,
    async afterReply(source, text, sourceMessageId, read) {
      if (source.roomKind !== 'unified' || !text) return;
      // Names as the post saw them; each relayed target is still resolved (and checked active) afresh.
      const participants = source.participants ?? (await settings.listParticipants());
      const targets = extractMentions(text, participants, source.participant.id);
      if (targets.length === 0) return;
      if (source.relayDepth >= 1) {
        const called = targets
          .map((id) => `@${participants.find((entry) => entry.id === id)?.name ?? id}`)
          .join(', ');
        await settings.writer.appendNote(source.roomId, {
          code: 'relay_limit',
          params: { name: source.participant.name, called },
        });
        return;
      }
      const entry = relayed.get(sourceMessageId) ?? { targets: new Set<string>(), running: 0 };
      relayed.set(sourceMessageId, entry);
      try {
        for (const targetId of targets) {
          if (entry.targets.has(targetId)) continue;
          entry.targets.add(targetId);
          const target = await settings.resolveParticipant(targetId);
          if (!target?.active) continue;
          const { done } = await settings.startRelayedTurn(source, {
            target,
            sourceMessageId,
            ...(read ? { read } : {}),
          });
          entry.running += 1;
          // Nothing can relay the reply again once its relayed turns have ended: it is forgotten then.
          void done
            .catch(() => undefined)
            .then(() => {
              entry.running -= 1;
              forgetIfDone(sourceMessageId);
            });
        }
      } finally {
        forgetIfDone(sourceMessageId);
      }
    },
  };
}
