import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** A command that serves MCP over stdio. */
export interface StdioServerCommand {
  command: string;
  args?: string[];
  /** The whole environment of the server process (PATH and HOME are added when missing). */
  env?: Record<string, string>;
}

/** A connected SDK client and the server's stderr so far. */
export interface StdioClientConnection {
  client: Client;
  stderr(): string;
  /** Closes the client; the server sees stdin end. */
  close(): Promise<void>;
}

function baseEnv(env: Record<string, string> | undefined): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    ...env,
  };
}

/**
 * Spawns an MCP stdio server and connects a real SDK `Client` to it (tests of servers built with
 * `@hal-ai/mcp`, and of anything else that speaks MCP).
 *
 * @example
 * const { client, close } = await connectStdioClient({ command: process.execPath, args: [binPath], env });
 * const { tools } = await client.listTools();
 */
export async function connectStdioClient(
  server: StdioServerCommand,
  clientInfo: { name: string; version: string } = { name: 'hal-mcp-test', version: '0.0.0' },
): Promise<StdioClientConnection> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    env: baseEnv(server.env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(clientInfo);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`MCP server did not start: ${String(error)}\n${stderr}`);
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Where the MCP Inspector CLI (`@modelcontextprotocol/inspector`, a dev dependency) is, if installed. */
export function inspectorCliPath(): string | undefined {
  const file = fileURLToPath(
    new URL('../node_modules/@modelcontextprotocol/inspector/cli/build/index.js', import.meta.url),
  );
  return fs.existsSync(file) ? file : undefined;
}

/** One MCP Inspector CLI call. */
export interface InspectorCall extends StdioServerCommand {
  method: 'tools/list' | 'tools/call';
  toolName?: string;
  /** `--tool-arg key=value` pairs. */
  toolArgs?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * Runs the MCP Inspector CLI against a stdio server and parses its JSON answer. The CLI exits 0 even
 * when a tool fails (`isError: true` in the JSON): assert on the JSON.
 *
 * @example
 * const list = await runInspector({ command: process.execPath, args: [bin], env, method: 'tools/list' });
 */
export function runInspector(call: InspectorCall): Promise<unknown> {
  const cli = inspectorCliPath();
  if (cli === undefined) return Promise.reject(new Error('@modelcontextprotocol/inspector is not installed'));
  const argv = [cli, call.command, ...(call.args ?? []), '--method', call.method];
  if (call.toolName !== undefined) argv.push('--tool-name', call.toolName);
  for (const [key, value] of Object.entries(call.toolArgs ?? {})) argv.push('--tool-arg', `${key}=${value}`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      argv,
      { env: baseEnv(call.env), timeout: call.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`inspector failed: ${error.message}\n${stderr}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`inspector printed no JSON:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}
