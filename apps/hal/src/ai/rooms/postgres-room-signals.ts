import type { TurnScope } from '@hal-ai/rooms';

/**
 * The `LISTEN/NOTIFY` channel the instances on one PostgreSQL database send each other requests on. It is not the
 * room events' channel: a request is addressed to whoever runs the work, is never replayed to a panel, and has no
 * place in the events' per-origin numbering.
 */
export const ROOM_SIGNALS_CHANNEL = 'hal_room_signals';

/**
 * A request to the other processes: `stop_turns` — stop your running turns in `scope`, as a local cancel does
 * (a `/reset` of the room, or a connection disabled or deleted, on the sending instance).
 */
export interface RoomSignal {
  type: 'stop_turns';
  scope: TurnScope;
}

/** One signal as it crosses: the sender's origin (so it skips its own) and the request. */
export function encodeRoomSignal(origin: string, signal: RoomSignal): string {
  const { roomId, connectionId } = signal.scope;
  return JSON.stringify({
    origin,
    type: signal.type,
    ...(roomId !== undefined ? { roomId } : { connectionId }),
  });
}

const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 200;

/** Reads a notification's payload back; `undefined` for anything that is not a well-formed signal. */
export function parseRoomSignal(payload: string): { origin: string; signal: RoomSignal } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { origin, type, roomId, connectionId } = value as Record<string, unknown>;
  if (!isId(origin) || type !== 'stop_turns') return undefined;
  if (isId(roomId) && connectionId === undefined) return { origin, signal: { type, scope: { roomId } } };
  if (isId(connectionId) && roomId === undefined)
    return { origin, signal: { type, scope: { connectionId } } };
  return undefined;
}
