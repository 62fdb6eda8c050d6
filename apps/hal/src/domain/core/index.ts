// HAL's core domain: the one API the console routes and the AI tools both call.
export type { AgentDirectory, ArtifactRef, NodeAgent, ServerMetrics, StepLog } from './agent.js';
export { type ChangelogEntry, parseVersionHistory, readVersionHistory } from './core-changelog.js';
export type { Deployment } from './core-deployments.js';
export { type DrSnapshot, type DrStatus, verifySnapshot } from './core-dr.js';
export type { EmergencyProcedure, Incident, MailService } from './core-incidents.js';
export type { JobRunnerStatus } from './core-job-runner.js';
export type { Job, JobHandler, JobStep, JobStepContext } from './core-jobs.js';
export type { Release } from './core-releases.js';
export {
  type ArgsOf,
  DeployArgs,
  DeploymentsListArgs,
  INCIDENT_SEVERITIES,
  IncidentOpenArgs,
  IncidentResolveArgs,
  IncidentsListArgs,
  JOB_CONTROL_ACTIONS,
  JOB_STATES,
  JOB_TYPES,
  JobControlArgs,
  JobIdArgs,
  JobsListArgs,
  ModuleHealthArgs,
  NoArgs,
  ReconcileArgs,
  ReleaseIdArgs,
  ReleaseRegisterArgs,
  ReleasesListArgs,
  RollbackArgs,
  SERVER_STATES,
  ServerCreateArgs,
  ServerIdArgs,
  ServerIsolateArgs,
  ServerMaintenanceArgs,
  ServerMetricsArgs,
  ServersListArgs,
  SettingsApplyArgs,
  SettingsGetArgs,
  SettingsSetArgs,
} from './core-schemas.js';
export { hashToken, type Server } from './core-servers.js';
export {
  CONFIDENTIAL_MASK,
  type EffectiveSetting,
  looksLikeSecret,
  SETTINGS_SCHEMA,
  type SettingDefinition,
} from './core-settings.js';
export { type Actor, type CoreLogger, parseInput } from './core-support.js';
export {
  createHalCore,
  type HalCore,
  type HalCoreOptions,
  LOCAL_SERVER_ID,
  runningCore,
} from './hal-core.js';
