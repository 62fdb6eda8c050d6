import { describe, expect, it } from 'vitest';
import { createMemoryRoomStore } from './room-memory-store.js';
import { describeRoomStoreContract } from './testing/room-store-contract.js';

// The reference store runs the same contract as every other store (the app's SQL store runs it too).
describeRoomStoreContract(
  'memory (reference)',
  async () => ({ store: createMemoryRoomStore(), close: async () => {} }),
  { describe, it, expect },
);
