// The console's page views, one file per page (`pages-view-<page>.tsx`); this index re-exports them.

export { AiView } from './pages-view-ai.js';
export { AuditView } from './pages-view-audit.js';
export { MetricsView } from './pages-view-helpers.js';
export { IncidentsView } from './pages-view-incidents.js';
export { JobsView, JobView } from './pages-view-jobs.js';
export { OverviewView } from './pages-view-overview.js';
export { ReleasesView } from './pages-view-releases.js';
export { AgentTokenView, ServersView, ServerView } from './pages-view-servers.js';
export { SettingsView } from './pages-view-settings.js';
