import type { CallOptions } from '@hal-ai/spec';

/** Anthropic's `thinking` request field as HAL sends it. */
export interface AnthropicThinking {
  type: 'enabled';
  budget_tokens: number;
}

/** Thinking budgets in tokens; the API's minimum is 1024. */
const BUDGETS = { low: 1024, medium: 4096, high: 16_384 } as const;

/**
 * Maps a reasoning level to Anthropic's extended thinking: `low` 1024, `medium` 4096, `high` 16 384 budget
 * tokens. The API wants `max_tokens` above the budget, so the budget is added to the answer's own allowance; it
 * refuses `temperature` and a forced tool choice with thinking, so thinking leaves out the temperature and is not
 * asked for when the call forces a tool. `off` or no level: nothing is sent.
 */
export function prepareAnthropicThinking(
  options: Pick<CallOptions, 'reasoning' | 'toolChoice'>,
  maxOutputTokens: number,
): { thinking?: AnthropicThinking; maxTokens: number } {
  const { reasoning, toolChoice } = options;
  const forcesTool = toolChoice === 'required' || (typeof toolChoice === 'object' && toolChoice !== null);
  if (!reasoning || reasoning === 'off' || forcesTool) return { maxTokens: maxOutputTokens };
  const budget = BUDGETS[reasoning];
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: maxOutputTokens + budget };
}
