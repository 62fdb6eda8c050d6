/**
 * A post under a `send-first` scheduler (see `room-turn-scheduler.ts`): its turns' first model requests start
 * before the operator's message and the turn rows are stored; the rows are stored as soon as every request is on
 * its way. Nothing of an answer is read before the rows and the turn's placeholder are stored; if the message or a
 * turn cannot be stored, the requests are cancelled, the turns end without a trace and the post fails with the
 * store's error. Meanwhile the message is pending: prompts of the room built by this engine include it.
 */
import type { RoomMessage } from '@hal-ai/spec';
import type { PostMessageResult } from './room-engine-types.js';
import type { RoomStore, TurnRecord } from './room-store.js';
import type { StartedTurn, TurnRequest } from './room-turn.js';
import type { RoomMessageInput, RoomWriter } from './room-writer.js';

/** Settings of {@link createSendFirstPost}. */
export interface SendFirstPostSettings {
  store: RoomStore;
  writer: RoomWriter;
  historyMessages: number;
  newRecord(request: TurnRequest): TurnRecord;
  /** Starts a turn whose record the post stores itself. */
  startTurn(request: TurnRequest, record: TurnRecord): Promise<StartedTurn>;
}

/** Posts one operator message, sending first. */
export type SendFirstPost = (
  message: RoomMessageInput,
  requests: TurnRequest[],
) => Promise<Pick<PostMessageResult, 'message' | 'turns'>>;

/** Creates the send-first post of an engine. */
export function createSendFirstPost(settings: SendFirstPostSettings): SendFirstPost {
  const { store, writer } = settings;
  /** Operator messages whose requests left before they were stored, by room. */
  const pending = new Map<string, RoomMessage[]>();
  const readHistory = async (roomId: string): Promise<RoomMessage[]> => {
    // Taken before the read: a message stored during it is then in one of the two (or both: kept once).
    const waiting = [...(pending.get(roomId) ?? [])];
    const stored = await store.listMessages(roomId, { limit: settings.historyMessages });
    const ids = new Set(stored.map((message) => message.id));
    return [...stored, ...waiting.filter((message) => !ids.has(message.id))];
  };

  return async (input, requests) => {
    const roomId = input.roomId;
    const message: RoomMessage = {
      ...input,
      id: input.id ?? writer.newId(),
      seq: 0,
      createdAt: writer.now(),
    };
    pending.set(roomId, [...(pending.get(roomId) ?? []), message]);
    let release: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      release = resolve;
    });
    const records = requests.map((request) =>
      settings.newRecord({ ...request, triggerMessageId: message.id }),
    );
    // The rows, once every request is on its way; a reset of the room waits for them.
    const rows = writer.trackWrite(
      roomId,
      ready.then(async () => {
        try {
          const saved = await writer.appendMessage({ ...input, id: message.id });
          for (const record of records) await writer.createTurn(record);
          return saved;
        } finally {
          const left = (pending.get(roomId) ?? []).filter((entry) => entry !== message);
          if (left.length > 0) pending.set(roomId, left);
          else pending.delete(roomId);
        }
      }),
    );
    rows.catch(() => undefined);
    let historyRead: Promise<RoomMessage[]> | undefined;
    const history = () => {
      historyRead ??= readHistory(roomId);
      return historyRead;
    };
    const sent: Promise<void>[] = [];
    const turns: PostMessageResult['turns'] = [];
    for (const [index, request] of requests.entries()) {
      let markSent: () => void = () => undefined;
      sent.push(
        new Promise<void>((resolve) => {
          markSent = resolve;
        }),
      );
      const started = await settings.startTurn(
        { ...request, triggerMessageId: message.id, history, early: { rowsStored: rows, sent: markSent } },
        records[index] as TurnRecord,
      );
      turns.push({ turnId: started.turnId, connectionId: started.connectionId });
    }
    await Promise.all(sent);
    release();
    return { message: await rows, turns };
  };
}
