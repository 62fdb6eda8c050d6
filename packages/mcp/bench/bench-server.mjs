// The server under test: @hal-ai/mcp (built dist) serving a small registry over stdio.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createToolRegistry, defineTool } from '@hal-ai/tools';
import { createHalMcpServer } from '../dist/index.js';
import { serveStdio } from '../dist/stdio.js';

// valibot is @hal-ai/tools' dependency, not ours: load the same copy it uses.
const fromTools = createRequire(new URL('../../tools/package.json', import.meta.url));
const v = await import(pathToFileURL(fromTools.resolve('valibot')).href);

const registry = createToolRegistry([
  defineTool({
    name: 'echo',
    description: 'Echoes back the input.',
    risk: 'read',
    args: v.object({ message: v.string() }),
    execute: (_context, { message }) => ({ echo: message }),
  }),
  defineTool({
    name: 'note_add',
    description: 'Adds a note (write: becomes an approval request).',
    risk: 'write',
    args: v.object({ text: v.string() }),
    execute: () => ({ added: true }),
  }),
]);
let next = 0;
const server = createHalMcpServer({
  registry,
  name: 'hal-bench',
  version: '0.0.0',
  context: () => ({}),
  onApprovalRequest: async () => ({ actionId: `act_${++next}` }),
});
await serveStdio(server);
