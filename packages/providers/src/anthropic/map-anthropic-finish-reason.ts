import type { FinishReason } from '@hal-ai/spec';

/** Maps Anthropic's `stop_reason` to a HAL finish reason. */
export function mapAnthropicFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    case null:
    case undefined:
      return 'unknown';
    default:
      return 'other';
  }
}
