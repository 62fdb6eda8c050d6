import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryRoomStore } from '@hal-ai/rooms';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createKyselyRoomStore } from './kysely-room-store.js';
import { describeRoomStoreContract } from './room-store-contract.test-support.js';

describeRoomStoreContract('memory (reference)', async () => ({
  store: createMemoryRoomStore(),
  close: async () => {},
}));

describeRoomStoreContract('kysely over a SQLite file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-rooms-'));
  const database = openDatabase(path.join(dir, 'hal.db'));
  await migrateToLatest(database.db);
  return {
    store: createKyselyRoomStore(database.db, { now: () => Date.parse('2026-11-30T12:00:00Z') }),
    async close() {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
