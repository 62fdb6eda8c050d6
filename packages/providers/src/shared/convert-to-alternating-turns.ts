import type { Prompt, PromptMessage } from '@hal-ai/spec';
import { joinSystem } from './model-helpers.js';

/** @internal One turn of an API that wants the roles to alternate. */
export interface AlternatingTurn<Role extends string, Part> {
  role: Role;
  parts: Part[];
}

/**
 * @internal Splits a prompt the way Anthropic and Gemini take it: system messages joined into one text apart from
 * the turns, and consecutive turns of one role merged (both APIs want the roles to alternate). `convert` turns one
 * non-system message into the vendor's role and parts; a message without parts adds no turn.
 */
export function convertToAlternatingTurns<Role extends string, Part>(
  prompt: Prompt,
  convert: (message: Exclude<PromptMessage, { role: 'system' }>) => AlternatingTurn<Role, Part>,
): { system?: string; turns: Array<AlternatingTurn<Role, Part>> } {
  const system: string[] = [];
  const turns: Array<AlternatingTurn<Role, Part>> = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      system.push(message.content);
      continue;
    }
    const { role, parts } = convert(message);
    if (parts.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else turns.push({ role, parts });
  }
  const systemText = joinSystem(system);
  return { ...(systemText ? { system: systemText } : {}), turns };
}

/** @internal An assistant message's parts without empty text (the APIs refuse empty text blocks). */
export function withoutEmptyText<Part extends { type: string; text?: string }>(parts: Part[]): Part[] {
  return parts.filter((part) => part.type !== 'text' || (part.text ?? '').length > 0);
}
