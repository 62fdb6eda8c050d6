/**
 * Local slash commands (`/help`, `/tools`, `/model <name>`, `/reset`): they never call a model; each answers with
 * a HAL note (a code and its params, see `room-notes.ts`). Parsing and expansion live in `room-slash-commands.ts`.
 */
import { HalError, type RoomNote } from '@hal-ai/spec';
import type { ToolRegistry } from '@hal-ai/tools';
import type {
  MaybePromise,
  RoomCommandHandlers,
  RoomOperator,
  RoomParticipant,
  RoomParticipantSummary,
} from './room-engine-types.js';
import { helpNote } from './room-notes.js';

/** The room a command runs in. */
export interface CommandRoom {
  id: string;
  kind: 'unified' | 'direct' | 'debate';
  connectionId: string | null;
}

/** Settings of {@link createLocalCommands}. */
export interface LocalCommandsSettings<C> {
  registry: ToolRegistry<C>;
  listParticipants(): MaybePromise<RoomParticipantSummary[]>;
  resolveParticipant(connectionId: string): MaybePromise<RoomParticipant | undefined>;
  commands?: RoomCommandHandlers;
  /** `/reset`: the engine's reset of the room; returns how many proposals it cancelled. */
  resetRoom(roomId: string): Promise<{ cancelled: unknown[] }>;
}

/** Runs a local command; resolves with the note to show. */
export type LocalCommandRunner = (
  room: CommandRoom,
  command: string,
  values: Record<string, string>,
  operator: RoomOperator,
) => Promise<RoomNote>;

/** Creates the local command runner of an engine. */
export function createLocalCommands<C>(settings: LocalCommandsSettings<C>): LocalCommandRunner {
  return async (room, command, values, operator) => {
    if (command === 'help') return helpNote();
    if (command === 'tools') {
      const ids =
        room.kind === 'direct' && room.connectionId
          ? [room.connectionId]
          : (await settings.listParticipants()).filter((entry) => entry.active).map((entry) => entry.id);
      const lines: string[] = [];
      for (const id of ids) {
        const participant = await settings.resolveParticipant(id);
        if (!participant) continue;
        const names = settings.registry
          .select(participant.toolSelection)
          .map((tool) => `${tool.name} (${tool.risk})`);
        // Names only, so the line reads the same in every language: `—` is a model without tools.
        lines.push(`${participant.name}: ${names.length > 0 ? names.join(', ') : '—'}`);
      }
      return lines.length > 0
        ? { code: 'command_tools', params: { tools: lines.join('\n') } }
        : { code: 'command_tools_none', params: {} };
    }
    if (command === 'model') {
      const model = values.name ?? '';
      if (!room.connectionId)
        throw new HalError('command_needs_direct_room', '/model works only in a model room');
      if (!settings.commands?.setModel) throw new HalError('invalid_state', '/model is not available here');
      const switched = await settings.commands.setModel(room.connectionId, model, operator);
      const name = switched?.name ?? (await settings.resolveParticipant(room.connectionId))?.name;
      return {
        code: 'command_model',
        params: { name: name ?? room.connectionId, model: switched?.model ?? model },
      };
    }
    if (command === 'reset') {
      const { cancelled } = await settings.resetRoom(room.id);
      return cancelled.length > 0
        ? { code: 'command_reset_cancelled', params: { cancelled: cancelled.length } }
        : { code: 'command_reset', params: {} };
    }
    throw new HalError('unknown_command', `/${command} is not a local command`);
  };
}
