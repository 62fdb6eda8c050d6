/** The SPEC §9 defaults (and the context settings) of every new debate. */
export interface DebateDefaults {
  /** Default 8. */
  maxRounds: number;
  /** Default 200,000 tokens (provider-reported). */
  tokenBudget: number;
  /** A moderator summary note every this many rounds (default 3; 0: never). */
  summaryEvery: number;
  /** The share of the smallest context window a prompt's context may fill before older rounds are compacted (0.6). */
  contextShare: number;
  /** Rounds always carried in full (2). */
  keepRecentRounds: number;
  /** The context window assumed when a model's list does not report one (128,000). */
  contextWindow: number;
}

/** The defaults of {@link DebateDefaults} (SPEC §9: 8 rounds, 200,000 tokens, a summary every 3 rounds). */
export const DEBATE_DEFAULTS: DebateDefaults = {
  maxRounds: 8,
  tokenBudget: 200_000,
  summaryEvery: 3,
  contextShare: 0.6,
  keepRecentRounds: 2,
  contextWindow: 128_000,
};
