/**
 * `@hal-ai/rooms/testing`: what tests of code built on the rooms need — a scripted `LanguageModel` (no network)
 * and the `RoomStore` contract suite every store implementation should run.
 */

export type { ContractAssertion, ContractRunner, RoomStoreUnderTest } from './room-store-contract.js';
export { describeRoomStoreContract } from './room-store-contract.js';
export type { ScriptedLanguageModel, ScriptedResponse, ScriptStep } from './scripted-language-model.js';
export { createScriptedModel, textReply, toolCallReply } from './scripted-language-model.js';
