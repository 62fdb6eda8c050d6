/** Tables of the HAL core domain (servers, releases, jobs, incidents, DR, settings). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the core domain
export interface CoreTables {}
