import type { CallOptions, DebateVerdict, RoomEvent, StreamPart, Usage } from '@hal-ai/spec';
import { type CreateDebateInput, createDebateEngine, type DebateEngineSettings } from './debate-engine.js';
import { createMemoryDebateStore } from './debate-memory-store.js';
import { MODERATOR_TASKS } from './debate-prompts.js';
import { createRoomFixture, type FixtureParticipantInput } from './testing/room-fixture.test-support.js';
import { type ScriptedResponse, type ScriptStep, textReply } from './testing/scripted-language-model.js';

/** The text of a call's last user message (where a debate call's task is). */
export function lastUserText(options: CallOptions): string {
  const users = options.prompt.filter((message) => message.role === 'user');
  const last = users.at(-1);
  if (!last || last.role !== 'user') return '';
  return last.content.map((part) => part.text).join('');
}

/** The moderator task a call is for, by its first line. */
export function taskOf(options: CallOptions): keyof typeof MODERATOR_TASKS | null {
  const text = lastUserText(options);
  const entry = Object.entries(MODERATOR_TASKS).find(([, line]) => text.startsWith(line));
  return (entry?.[0] as keyof typeof MODERATOR_TASKS | undefined) ?? null;
}

/** A verdict as the moderator would write it. */
export function verdict(overrides: Partial<DebateVerdict> = {}): string {
  return JSON.stringify({
    decision: 'continue',
    agreement_level: 'partial',
    reason: 'Both sides gave ground on tooling.',
    agreed: ['formatters settle it'],
    disputed: ['default width'],
    ...overrides,
  });
}

/** What a scripted moderator answers; `judge` gets the verdicts in order (the last one repeats). */
export interface ModeratorScript {
  verdicts: string[];
  usage?: Usage;
  /** Gates per task call (1-based count of that task), e.g. to hold the 2nd brief. */
  gate?: (task: string, count: number) => Promise<unknown> | undefined;
}

/** A scripted moderator: answers each task by its first line. */
export function moderatorStep(script: ModeratorScript): ScriptStep {
  const counts = new Map<string, number>();
  return (options: CallOptions): ScriptedResponse => {
    const task = taskOf(options) ?? 'unknown';
    const count = (counts.get(task) ?? 0) + 1;
    counts.set(task, count);
    const reply = (text: string): ScriptedResponse => {
      const gate = script.gate?.(task, count);
      return { parts: textReply(text, script.usage), ...(gate ? { gate } : {}) };
    };
    switch (task) {
      case 'brief': {
        const suggested = /by turn it would be ([^)]+)\)/.exec(lastUserText(options))?.[1] ?? '';
        return reply(`SPEAKER: ${suggested}\nRespond to the other side's latest point (brief ${count}).`);
      }
      case 'merge':
        return reply(`# Working document\n\n- agreed: formatters (merge ${count})\n- open: width`);
      case 'judge':
        return reply(script.verdicts[Math.min(count - 1, script.verdicts.length - 1)] ?? verdict());
      case 'compact':
        return reply(`COMPACTED SUMMARY ${count}: both sides prefer formatters.`);
      case 'conclusion':
        return reply('Conclusion: use a formatter and its default width.');
      case 'stopSummary':
        return reply('Stop summary: formatters agreed; width disputed.');
      case 'summary':
        return reply(`Summary note ${count}: still discussing width.`);
      default:
        return reply('?');
    }
  };
}

/** A scripted debater: answers every call with a numbered position. */
export function debaterStep(
  name: string,
  usage?: Usage,
  extra: (count: number) => StreamPart[] | null = () => null,
): ScriptStep {
  let count = 0;
  return (): ScriptedResponse => {
    count += 1;
    return { parts: extra(count) ?? textReply(`${name} position ${count}: formatters win.`, usage) };
  };
}

/** A room fixture with a moderator (`mod`), two debaters (`a`, `b`) and a debate engine over a memory store. */
export async function createDebateFixture(options: {
  moderator: ModeratorScript;
  debaters?: { a?: ScriptStep; b?: ScriptStep };
  extraParticipants?: FixtureParticipantInput[];
  defaults?: DebateEngineSettings['defaults'];
  contextWindow?: number;
  onMilestone?: DebateEngineSettings['onMilestone'];
}) {
  const fixture = await createRoomFixture({
    participants: [
      {
        id: 'mod',
        name: 'Gemini',
        steps: [moderatorStep(options.moderator)],
        toolSelection: { preset: 'none' },
      },
      { id: 'a', name: 'Claude', steps: [options.debaters?.a ?? debaterStep('Claude')] },
      { id: 'b', name: 'GPT', steps: [options.debaters?.b ?? debaterStep('GPT')] },
      ...(options.extraParticipants ?? []),
    ],
  });
  const store = createMemoryDebateStore();
  const errors: unknown[] = [];
  let ids = 0;
  const debates = createDebateEngine({
    rooms: fixture.engine,
    roomStore: fixture.store,
    events: fixture.events,
    store,
    resolveParticipant: (id) => fixture.participants.get(id),
    ...(options.contextWindow ? { contextWindowOf: () => options.contextWindow } : {}),
    ...(options.defaults ? { defaults: options.defaults } : {}),
    ...(options.onMilestone ? { onMilestone: options.onMilestone } : {}),
    newId: () => `debate_${++ids}`,
    onError: (error) => errors.push(error),
  });
  const events: RoomEvent[] = [];
  const start = async (input: Partial<CreateDebateInput> = {}) => {
    const debate = await debates.create({
      topic: 'Tabs or spaces?',
      moderatorId: 'mod',
      debaterIds: ['a', 'b'],
      operator: fixture.operator,
      ...input,
    });
    fixture.events.subscribe(debate.roomId, {}, ({ event }) => events.push(event));
    return debate;
  };
  /** Waits until the debate loop and every turn are idle. */
  const settle = async () => {
    await debates.idle();
    await fixture.engine.idle();
    await debates.idle();
  };
  return { ...fixture, debates, debateStore: store, start, settle, events, debateErrors: errors };
}
