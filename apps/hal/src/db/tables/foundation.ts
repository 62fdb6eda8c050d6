/** Tables of the foundation (operators, sessions, audit). Owned by the foundation work. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the foundation
export interface FoundationTables {}
