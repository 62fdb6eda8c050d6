import { HalError } from '@hal-ai/spec';

/** The `HalError` a promise rejects with; anything else (or no rejection) fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<HalError> {
  try {
    await promise;
  } catch (error) {
    if (HalError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
