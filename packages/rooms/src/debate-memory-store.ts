import { HalError } from '@hal-ai/spec';
import type { DebateRecord, DebateRoundRecord, DebateStore } from './debate-store.js';

function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * An in-memory {@link DebateStore} for tests and single-process tools; each check-and-write is synchronous, which
 * makes {@link DebateStore.commitRound} atomic here.
 */
export function createMemoryDebateStore(): DebateStore {
  const debates = new Map<string, DebateRecord>();
  const rounds = new Map<string, DebateRoundRecord[]>();
  const documents = new Map<string, Array<{ version: number; text: string; round: number }>>();
  const require = (debateId: string): DebateRecord => {
    const debate = debates.get(debateId);
    if (!debate) throw new HalError('not_found', `No debate ${debateId}`);
    return debate;
  };

  return {
    async createDebate(record) {
      if (debates.has(record.id)) throw new HalError('conflict', `Debate ${record.id} exists`);
      debates.set(record.id, copy(record));
      rounds.set(record.id, []);
      documents.set(record.id, [{ version: record.document.version, text: record.document.text, round: 0 }]);
      return copy(record);
    },
    async getDebate(debateId) {
      const debate = debates.get(debateId);
      return debate ? copy(debate) : undefined;
    },
    async findDebateByRoom(roomId) {
      const debate = [...debates.values()].find((entry) => entry.roomId === roomId);
      return debate ? copy(debate) : undefined;
    },
    async listDebates() {
      return [...debates.values()].reverse().map(copy);
    },
    async listDebatesByStatus(statuses) {
      return [...debates.values()].filter((entry) => statuses.includes(entry.status)).map(copy);
    },
    async updateDebate(debateId, patch) {
      const debate = require(debateId);
      Object.assign(debate, copy(patch));
      return copy(debate);
    },
    async commitRound(debateId, round, document, patch) {
      const debate = require(debateId);
      const log = rounds.get(debateId) ?? [];
      if (log.some((entry) => entry.n === round.n)) {
        throw new HalError('conflict', `Round ${round.n} of debate ${debateId} is already stored`);
      }
      log.push(copy(round));
      documents.get(debateId)?.push(copy(document));
      Object.assign(debate, copy(patch));
      return copy(debate);
    },
    async listRounds(debateId) {
      return (rounds.get(debateId) ?? []).map(copy);
    },
    async listDocumentVersions(debateId) {
      return (documents.get(debateId) ?? []).map(copy);
    },
  };
}
