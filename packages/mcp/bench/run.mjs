// `pnpm bench`: @hal-ai/mcp vs @modelcontextprotocol/server-everything over stdio, same run, same client.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { connectStdioClient } from '../dist/testing.js';

const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 1000);
const COLD_STARTS = Number(process.env.MCP_BENCH_COLD_STARTS ?? 15);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

const servers = [
  {
    name: '@hal-ai/mcp',
    command: process.execPath,
    args: [fileURLToPath(new URL('./bench-server.mjs', import.meta.url))],
    call: { name: 'echo', arguments: { message: 'hello' } },
  },
  {
    name: '@modelcontextprotocol/server-everything',
    command: process.execPath,
    args: [`${packageDir}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'stdio'],
    call: { name: 'echo', arguments: { message: 'hello' } },
  },
];

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const round = (value) => Math.round(value * 1000) / 1000;
  return { n: sorted.length, medianMs: round(at(0.5)), p95Ms: round(at(0.95)), minMs: round(sorted[0]) };
}

async function timed(work) {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function bench(server) {
  const cold = [];
  for (let index = 0; index < COLD_STARTS; index++) {
    let connection;
    // Cold start = spawn until the `initialize` answer arrived (connect() waits for it).
    cold.push(
      await timed(async () => {
        connection = await connectStdioClient(server);
      }),
    );
    await connection.close();
  }
  const connection = await connectStdioClient(server, { name: 'hal-mcp-bench', version: '0.0.0' });
  try {
    const first = await connection.client.callTool(server.call);
    if (first.isError) throw new Error(`${server.name}: ${JSON.stringify(first)}`);
    // Warm-up of both paths, so neither server pays for the shared client's JIT warm-up.
    for (let index = 0; index < 200; index++) await connection.client.listTools();
    for (let index = 0; index < 200; index++) await connection.client.callTool(server.call);
    const list = [];
    for (let index = 0; index < CALLS; index++) list.push(await timed(() => connection.client.listTools()));
    const call = [];
    for (let index = 0; index < CALLS; index++)
      call.push(await timed(() => connection.client.callTool(server.call)));
    const { tools } = await connection.client.listTools();
    return { server: server.name, tools: tools.length, samples: { cold, list, call } };
  } finally {
    await connection.close();
  }
}

// A-B-B-A: each server is measured once early and once late in the run, so drift of the machine or the
// client process (JIT, GC) falls on both alike; the two passes' samples are pooled per server.
const passes = [];
for (const server of [...servers, ...[...servers].reverse()]) {
  process.stderr.write(`bench: ${server.name}…\n`);
  passes.push(await bench(server));
}
const results = servers.map((server) => {
  const mine = passes.filter((pass) => pass.server === server.name);
  const pool = (key) => stats(mine.flatMap((pass) => pass.samples[key]));
  return {
    server: server.name,
    tools: mine[0].tools,
    coldStart: pool('cold'),
    toolsList: pool('list'),
    toolsCall: pool('call'),
  };
});
const report = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  calls: CALLS,
  coldStarts: COLD_STARTS,
  note: 'Round trips through the same SDK Client over stdio; server-everything registers more tools, so its tools/list answers are larger.',
  results,
};
fs.mkdirSync(`${packageDir}bench-results`, { recursive: true });
fs.writeFileSync(`${packageDir}bench-results/mcp.json`, `${JSON.stringify(report, null, 2)}\n`);
for (const result of results) {
  process.stdout.write(
    `${result.server.padEnd(42)} cold ${result.coldStart.medianMs} ms · tools/list ${result.toolsList.medianMs} ms · tools/call ${result.toolsCall.medianMs} ms (median)\n`,
  );
}
