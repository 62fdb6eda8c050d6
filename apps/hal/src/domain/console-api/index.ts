export { createAuthRoutes } from './auth.js';
export { createHealthRoutes } from './health.js';
