import type { FinishReason } from '@hal-ai/spec';

/** Maps Gemini's `finishReason`; a normal stop with function calls is `tool-calls`. */
export function mapGeminiFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'STOP':
      return hasToolCalls ? 'tool-calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content-filter';
    case 'MALFORMED_FUNCTION_CALL':
      return 'error';
    case undefined:
      return hasToolCalls ? 'tool-calls' : 'unknown';
    default:
      return 'other';
  }
}
