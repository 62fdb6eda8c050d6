import type { FinishReason } from '@hal-ai/spec';

/** Maps a Chat Completions `finish_reason` to a HAL finish reason. */
export function mapOpenAICompatibleFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    case 'error':
      return 'error';
    case null:
    case undefined:
      return 'unknown';
    default:
      return 'other';
  }
}
