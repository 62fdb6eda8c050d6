// Entry of the stdio fixture server: bundled by the stdio tests into a temp .mjs and spawned.
import { createHalMcpServer } from './index.js';
import { createSampleRegistry, type SampleContext } from './mcp-sample-registry.test-support.js';
import { serveStdio } from './stdio.js';

const effects = { reads: 0, writes: 0 };
let approvals = 0;
const server = createHalMcpServer<SampleContext>({
  registry: createSampleRegistry(),
  name: 'sample-stdio',
  version: '0.0.0',
  context: ({ clientName }) => ({ effects, actor: `mcp:${clientName}` }),
  onApprovalRequest: async ({ tool, clientName }) => {
    approvals += 1;
    process.stderr.write(`approval requested: ${tool} by ${clientName}\n`);
    return { actionId: `act_${approvals}` };
  },
});
process.stderr.write('sample stdio server ready\n');
const { closed } = await serveStdio(server);
await closed;
process.stderr.write(`bye (writes executed: ${effects.writes})\n`);
