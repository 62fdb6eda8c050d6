/** One shared counter of `hal_revisions` (migration 0013): bumped by every write of the state it names. */
export interface HalRevisionsTable {
  /** What the counter guards, e.g. `ai_connections`. */
  name: string;
  revision: number;
}

/** The revisions table. */
export interface RevisionTables {
  hal_revisions: HalRevisionsTable;
}
