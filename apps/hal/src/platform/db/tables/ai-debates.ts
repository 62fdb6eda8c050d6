/** `ai_debates`: one row per debate (SPEC §9); JSON columns hold lists and the round in flight. */
export interface AiDebatesTable {
  id: string;
  room_id: string;
  topic: string;
  slug: string;
  status: 'running' | 'paused' | 'waiting_operator' | 'concluded' | 'stopped' | 'failed';
  moderator_id: string;
  debater_ids_json: string;
  round: number;
  max_rounds: number;
  token_budget: number;
  agreement_streak: number;
  last_verdict_json: string | null;
  question: string | null;
  reason: string | null;
  document_version: number;
  document_text: string;
  conclusion: string | null;
  summary_every: number;
  compacted_summary: string | null;
  compacted_through: number;
  direction: string | null;
  notes_json: string;
  pending_json: string | null;
  operator_json: string | null;
  created_at: string;
  updated_at: string;
}

/** `ai_debate_rounds`: the append-only round log. */
export interface AiDebateRoundsTable {
  debate_id: string;
  n: number;
  speaker_id: string;
  input: string;
  reply: string;
  verdict_json: string;
  document_version: number;
  created_at: string;
}

/** `ai_debate_documents`: every version of a debate's working document (version 0 is the empty start). */
export interface AiDebateDocumentsTable {
  debate_id: string;
  version: number;
  text: string;
  round: number;
}

/** `ai_debate_pages`: where each of a debate's Wiki.js pages stands. */
export interface AiDebatePagesTable {
  debate_id: string;
  page: 'working-document' | 'round-log' | 'conclusion';
  path: string;
  /** The page's id in Wiki.js once created (then it is updated). */
  wiki_page_id: number | null;
  status: 'published' | 'failed';
  /** SHA-256 of the content last published (an unchanged page is not sent again). */
  content_hash: string | null;
  attempts: number;
  last_error_json: string | null;
  updated_at: string;
}

/** The debate tables. */
export interface AiDebateTables {
  ai_debates: AiDebatesTable;
  ai_debate_rounds: AiDebateRoundsTable;
  ai_debate_documents: AiDebateDocumentsTable;
  ai_debate_pages: AiDebatePagesTable;
}
