import { defineHalVitestConfig } from '../../vitest.shared';

export default defineHalVitestConfig();
