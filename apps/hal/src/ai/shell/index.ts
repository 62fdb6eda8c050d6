export type { ShellTool } from './shell-commands.js';
export { SHELL_COMMANDS, SHELL_DEFAULT_SIZE, SHELL_LOGIN_COMMAND } from './shell-commands.js';
export type { ShellRouteDependencies } from './shell-routes.js';
export { createShellRoutes } from './shell-routes.js';
export type {
  PtySpawn,
  ShellConnections,
  ShellEndReason,
  ShellEvent,
  ShellService,
  ShellServiceDependencies,
  ShellServiceSettings,
  ShellView,
} from './shell-sessions.js';
export { createShellService } from './shell-sessions.js';
