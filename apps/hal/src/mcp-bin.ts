#!/usr/bin/env node
// The `hal-mcp` bin: the same as `hal mcp`, for MCP client configs that want one executable.
import { runHalMcp } from './ai/mcp/mcp-command.js';

const stop = new Promise<string>((resolve) => {
  process.once('SIGINT', () => resolve('SIGINT'));
  process.once('SIGTERM', () => resolve('SIGTERM'));
});

runHalMcp({ stopSignal: stop }).then(
  (code) => {
    process.exitCode = code;
    // Nothing else should keep the process alive once stdin ended (e.g. an agent queue timer).
    setTimeout(() => process.exit(code), 1_000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`hal-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
