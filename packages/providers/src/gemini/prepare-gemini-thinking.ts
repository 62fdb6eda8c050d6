import type { ReasoningLevel } from '@hal-ai/spec';

/** Gemini's `generationConfig.thinkingConfig` as HAL sends it: a level (Gemini 3+) or a budget (Gemini 2.5). */
export type GeminiThinkingConfig = { thinkingLevel: 'low' | 'medium' | 'high' } | { thinkingBudget: number };

/** Thinking budgets in tokens for Gemini 2.5 (Flash allows up to 24 576, Pro up to 32 768). */
const BUDGETS: Record<Exclude<ReasoningLevel, 'off'>, number> = { low: 1024, medium: 8192, high: 24_576 };

/** The major.minor version in a Gemini model id (`gemini-2.5-flash` → 2.5), if it has one. */
function versionOf(modelId: string): number | undefined {
  const match = /^(?:models\/)?gemini-(\d+(?:\.\d+)?)/.exec(modelId);
  return match ? Number(match[1]) : undefined;
}

/**
 * Maps a reasoning level to the `thinkingConfig` the model family expects:
 *
 * - Gemini 3 and later take `thinkingLevel` (`thinkingBudget` is legacy there): `low` → `low`, `high` → `high`,
 *   `medium` → `medium` on Flash models and `high` on the others (Gemini 3 Pro accepts only `low` and `high`).
 * - Gemini 2.5 takes `thinkingBudget` in tokens: `low` 1024, `medium` 8192, `high` 24 576.
 * - `off`, no level, and other models (1.5, Gemma, unknown ids): nothing is sent and the model's own default
 *   applies (Gemini 2.5 Pro and Gemini 3 cannot switch thinking off; asking them to would be refused).
 */
export function prepareGeminiThinking(
  modelId: string,
  reasoning: ReasoningLevel | undefined,
): { thinkingConfig?: GeminiThinkingConfig } {
  if (!reasoning || reasoning === 'off') return {};
  const version = versionOf(modelId);
  if (version === undefined) return {};
  if (version >= 3) {
    const flash = /flash/.test(modelId);
    const level = reasoning === 'medium' && !flash ? 'high' : reasoning;
    return { thinkingConfig: { thinkingLevel: level } };
  }
  if (version >= 2.5) return { thinkingConfig: { thinkingBudget: BUDGETS[reasoning] } };
  return {};
}
