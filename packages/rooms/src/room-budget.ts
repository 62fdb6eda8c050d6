/**
 * A room's token budget (SPEC §9, issue #18.7): every room may carry a budget of provider-reported tokens. Each
 * model call adds what its provider reported to the room's `tokensUsed`; once that reaches the budget, no new turn
 * starts in the room (a hard stop, with a HAL note saying why). Tokens a provider did not report are not guessed.
 */
import type { Room, RoomNote, Usage } from '@hal-ai/spec';

/** The tokens a provider reported for one call: its total, else input plus output; 0 when it reported none. */
export function usageTokens(usage: Usage | null | undefined): number {
  if (!usage) return 0;
  if (typeof usage.totalTokens === 'number') return usage.totalTokens;
  return (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}

/** Whether a room's budget is spent (a room without a budget never is). */
export function isBudgetExhausted(room: Pick<Room, 'tokenBudget' | 'tokensUsed'>): boolean {
  return room.tokenBudget !== null && room.tokensUsed >= room.tokenBudget;
}

/** The HAL note of a room whose budget stopped a turn. */
export function budgetNote(room: Pick<Room, 'tokenBudget' | 'tokensUsed'>): RoomNote {
  return { code: 'token_budget', params: { used: room.tokensUsed, budget: room.tokenBudget ?? 0 } };
}
