import type { RoomEvent } from '@hal-ai/spec';

/**
 * PostgreSQL refuses a `NOTIFY` payload of 8000 bytes or more. HAL's notifications stay below this, header included,
 * so an event of any size crosses in pieces.
 */
export const NOTIFY_PAYLOAD_MAX_BYTES = 7900;

/** One room event as it crosses between processes. */
export interface CrossingRoomEvent {
  roomId: string;
  /** The process that published it. */
  origin: string;
  /** Its number among the origin's events in the room (1, 2, …). */
  seq: number;
  event: RoomEvent;
}

const HEADER = /^([0-9a-z]{1,16}) (\d{1,15}) (\d{1,6}) (\d{1,6}) ([^\s]{1,600})$/;

/** UTF-8 width of the character starting at `index`, and how many UTF-16 units it takes. */
function characterAt(text: string, index: number): { bytes: number; units: number } {
  const code = text.charCodeAt(index);
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

/** `text` cut into pieces of at most `maxBytes` UTF-8 bytes, never inside a character (nor a surrogate pair). */
export function splitUtf8(text: string, maxBytes: number): string[] {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return [text];
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let index = 0; index < text.length; ) {
    const { bytes: width, units } = characterAt(text, index);
    if (bytes + width > maxBytes) {
      pieces.push(text.slice(start, index));
      start = index;
      bytes = 0;
    }
    bytes += width;
    index += units;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * The `NOTIFY` payloads of one event: a header line `<origin> <seq> <part> <parts> <room id, URI-encoded>` and a
 * piece of the event's JSON. A small event (a delta, a turn) is one payload; a large one (a long message, an action
 * with a big result) is cut into as many as it needs, sent in order by its one sender, and put back together by
 * {@link createRoomEventAssembler} — the event itself crosses, not a reference to re-read, so the receiver sees
 * exactly what the sender's subscribers saw at that moment.
 */
export function encodeRoomEventNotifications(crossing: CrossingRoomEvent): string[] {
  const room = encodeURIComponent(crossing.roomId);
  const body = JSON.stringify(crossing.event);
  // The longest header this event can have: "<origin> <seq> <parts> <parts> <room>\n".
  const headerBytes = crossing.origin.length + String(crossing.seq).length + 2 * 7 + room.length + 4;
  const pieces = splitUtf8(body, NOTIFY_PAYLOAD_MAX_BYTES - headerBytes);
  return pieces.map(
    (piece, index) => `${crossing.origin} ${crossing.seq} ${index + 1} ${pieces.length} ${room}\n${piece}`,
  );
}

/** Puts notifications back together into events; see {@link createRoomEventAssembler}. */
export interface RoomEventAssembler {
  /** The event this payload completes, `undefined` while pieces are missing; a malformed payload throws. */
  accept(payload: string): CrossingRoomEvent | undefined;
  /** Forgets half-received events (after the listening connection dropped, their other pieces never come). */
  reset(): void;
}

interface HalfReceived {
  key: string;
  parts: number;
  pieces: string[];
}

/**
 * Reassembles {@link encodeRoomEventNotifications}' payloads. One sender's pieces arrive in order (one connection
 * sends them, and PostgreSQL delivers in commit order); pieces of different senders may interleave. A piece out of
 * order drops its event (the receiving hub then sees a hole in that origin's numbers and says so). At most
 * `maxPartial` events are half-received at once (one per live sender is the normal case).
 */
export function createRoomEventAssembler(maxPartial = 64): RoomEventAssembler {
  const partial = new Map<string, HalfReceived>();
  return {
    accept(payload) {
      const newline = payload.indexOf('\n');
      const header = newline < 0 ? undefined : HEADER.exec(payload.slice(0, newline));
      if (!header) throw new Error('not a room event notification');
      const [, origin, seqText, partText, partsText, room] = header as unknown as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const seq = Number(seqText);
      const part = Number(partText);
      const parts = Number(partsText);
      if (part < 1 || part > parts) throw new Error('room event notification: bad part number');
      const roomId = decodeURIComponent(room);
      const piece = payload.slice(newline + 1);
      const key = `${origin} ${seq} ${room}`;
      let body: string;
      if (parts === 1) body = piece;
      else {
        const found = partial.get(key);
        if (part === 1) {
          partial.delete(key);
          if (partial.size >= maxPartial) partial.delete(partial.keys().next().value as string);
          partial.set(key, { key, parts, pieces: [piece] });
          return undefined;
        }
        if (!found || found.parts !== parts || found.pieces.length !== part - 1) {
          partial.delete(key);
          return undefined;
        }
        found.pieces.push(piece);
        if (part < parts) return undefined;
        partial.delete(key);
        body = found.pieces.join('');
      }
      const event = JSON.parse(body) as RoomEvent;
      if (typeof event !== 'object' || event === null || typeof event.type !== 'string') {
        throw new Error('room event notification: not an event');
      }
      return { roomId, origin, seq, event };
    },
    reset() {
      partial.clear();
    },
  };
}
