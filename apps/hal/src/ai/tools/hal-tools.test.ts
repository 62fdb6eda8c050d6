import type Anthropic from '@anthropic-ai/sdk';
import { prepareAnthropicTools, prepareGeminiTools, prepareOpenAICompatibleTools } from '@hal-ai/providers';
import { executeTool, toMcpTools } from '@hal-ai/tools';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHarness, type ToolHarness } from './hal-tools.test-support.js';
import { createHalTools, HAL_TOOL_NAMES, HAL_TOOL_TIERS } from './index.js';

/**
 * SPEC §4, copied as text on purpose: the registry must match the specification, not itself. SPEC §10 adds
 * `web_fetch` (write: a proposal, except for allow-listed hosts; see docs/decisions.md).
 */
const SPEC_TIERS = {
  read: `hal_skill hal_health hal_overview hal_servers_list hal_server_get hal_server_metrics
    hal_releases_list hal_jobs_list hal_job_get hal_incidents_list hal_audit_list hal_mail_services_list
    hal_emergency_list hal_dr_status hal_changelog hal_settings_get hal_action_status hal_actions_pending`,
  write: `hal_server_create hal_server_approve hal_server_maintenance hal_incident_open
    hal_incident_resolve hal_job_control hal_module_health hal_dr_snapshot web_fetch`,
  high: `hal_server_isolate hal_server_delete hal_module_deploy hal_module_rollback
    hal_module_reconcile hal_release_approve hal_job_revert hal_config_set hal_settings_set
    hal_settings_apply`,
};
const specRows = Object.entries(SPEC_TIERS).flatMap(([tier, names]) =>
  names
    .trim()
    .split(/\s+/)
    .map((name) => [name, tier] as const),
);

describe('the HAL tool set', () => {
  const tools = createHalTools();

  it('has exactly the SPEC §4 tools', () => {
    expect(tools.list().map((t) => t.name)).toEqual(specRows.map(([name]) => name));
    expect(HAL_TOOL_NAMES).toEqual(specRows.map(([name]) => name));
    expect(specRows).toHaveLength(37);
  });

  it.each(specRows)('%s has tier %s', (name, tier) => {
    expect(tools.get(name)?.risk).toBe(tier);
    expect(HAL_TOOL_TIERS[name as keyof typeof HAL_TOOL_TIERS]).toBe(tier);
  });

  it('gives every high tool identifiers and an impact, and every tool a description for a model', () => {
    for (const tool of tools.list()) {
      expect(tool.description.length, tool.name).toBeGreaterThan(60);
      if (tool.risk === 'high') {
        expect(typeof tool.identifiers, tool.name).toBe('function');
        expect(typeof tool.impact, tool.name).toBe('function');
      }
    }
    expect(
      tools.get('hal_module_deploy')?.identifiers?.({ module: 'web', version: '1.2.0', serverId: 'srv_1' }),
    ).toEqual(['srv_1', 'web@1.2.0']);
    expect(
      tools.get('hal_settings_set')?.identifiers?.({ key: 'log.level', value: 'debug', serverId: 'srv_1' }),
    ).toEqual(['srv_1', 'log.level']);
    expect(tools.get('hal_module_reconcile')?.identifiers?.({})).toEqual(['all servers']);
  });

  it('takes no shell command, file path or network target (web_fetch alone takes a URL, SPEC §10)', () => {
    const forbidden =
      /^(command|cmd|shell|script|path|file|filename|dir|directory|url|uri|host|hostname|address|endpoint|artifact)$/i;
    // web_fetch's URL goes through the one guarded fetcher (no private address, ports 80/443) and is a proposal
    // unless its host is allow-listed; every other tool stays free of network targets.
    const webSchema = tools.get('web_fetch')?.inputSchema as { properties?: object } | undefined;
    expect(Object.keys(webSchema?.properties ?? {})).toEqual(['url']);
    for (const tool of tools.list().filter((entry) => entry.name !== 'web_fetch')) {
      const properties = Object.keys((tool.inputSchema as { properties?: object }).properties ?? {});
      for (const property of properties)
        expect(forbidden.test(property), `${tool.name}.${property}`).toBe(false);
    }
  });

  it('pages every list tool with limit (1–200) and cursor', () => {
    const lists = HAL_TOOL_NAMES.filter((name) => /_list$|_pending$|_changelog$/.test(name));
    expect(lists.length).toBeGreaterThanOrEqual(9);
    for (const name of lists) {
      const schema = tools.get(name)?.inputSchema as { properties: Record<string, Record<string, unknown>> };
      expect(schema.properties.limit, name).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
      expect(schema.properties.cursor, name).toMatchObject({ type: 'string' });
    }
  });

  it('declares valid tools for Anthropic, OpenAI, Gemini and MCP', () => {
    const list = tools.list();
    const declarations = tools.declarations();
    const anthropic: Anthropic.Tool[] = prepareAnthropicTools(declarations, undefined).tools ?? [];
    const openai: OpenAI.Chat.ChatCompletionTool[] =
      prepareOpenAICompatibleTools(declarations, undefined).tools ?? [];
    const gemini = prepareGeminiTools(declarations, undefined).tools ?? [];
    const mcp = toMcpTools(list);
    expect(anthropic).toHaveLength(37);
    for (const declaration of anthropic) {
      expect(declaration.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(declaration.input_schema.type).toBe('object');
      expect(declaration.input_schema).toMatchObject({ additionalProperties: false });
      expect(JSON.stringify(declaration.input_schema)).not.toContain('$schema');
    }
    for (const declaration of openai) {
      expect(declaration.type).toBe('function');
      if (declaration.type === 'function')
        expect(declaration.function.parameters).toMatchObject({ type: 'object' });
    }
    const functions = gemini[0]?.functionDeclarations ?? [];
    expect(functions).toHaveLength(37);
    const allowed = new Set([
      'type',
      'properties',
      'required',
      'description',
      'enum',
      'items',
      'nullable',
      'format',
      'minimum',
      'maximum',
      'minLength',
      'maxLength',
      'pattern',
      'anyOf',
      'minItems',
      'maxItems',
      'title',
      'default',
      'propertyOrdering',
    ]);
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      if (Array.isArray(node)) {
        for (const item of node) walk(item, `${where}[]`);
        return;
      }
      for (const [key, value] of Object.entries(node)) {
        if (where.endsWith('.properties')) walk(value, `${where}.${key}`);
        else {
          expect(allowed.has(key), `${where}.${key}`).toBe(true);
          walk(value, `${where}.${key}`);
        }
      }
    };
    for (const fn of functions) if (fn.parameters) walk(fn.parameters, fn.name);
    const byName = Object.fromEntries(mcp.map((d) => [d.name, d]));
    expect(byName.hal_servers_list?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(byName.hal_server_approve?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(byName.hal_server_delete?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });

  it('presets select the right tools', () => {
    const names = (preset: Parameters<typeof tools.select>[0]) => tools.select(preset).map((t) => t.name);
    expect(names({ preset: 'all' })).toHaveLength(37);
    expect(names({ preset: 'read_only' })).toEqual(specRows.filter(([, r]) => r === 'read').map(([n]) => n));
    expect(names({ preset: 'read_write' })).toEqual(specRows.filter(([, r]) => r !== 'high').map(([n]) => n));
    expect(names({ preset: 'none' })).toEqual([]);
    expect(names({ preset: 'custom', enabled: ['hal_module_deploy', 'hal_dr_status', 'nope'] })).toEqual([
      'hal_dr_status',
      'hal_module_deploy',
    ]);
  });
});

describe('calls that must not execute', () => {
  let h: ToolHarness;
  beforeAll(async () => {
    h = await createToolHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  async function counts() {
    const row = async (table: 'servers' | 'incidents' | 'audit' | 'jobs' | 'settings' | 'dr_snapshots') =>
      Number(
        (
          await h.t.deps.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirst()
        )?.n,
      );
    return {
      servers: await row('servers'),
      incidents: await row('incidents'),
      audit: await row('audit'),
      jobs: await row('jobs'),
      settings: await row('settings'),
      dr: await row('dr_snapshots'),
    };
  }

  it('refuses unknown tools, invalid arguments and disabled tools without touching anything', async () => {
    const before = await counts();
    const unknown = await h.run('hal_shell_exec', { command: 'rm -rf /' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });

    const cases: Array<[string, unknown, string]> = [
      ['hal_server_create', { name: 'web-1', role: 'web', extra: true }, 'extra'],
      ['hal_server_create', { name: 'Web 1!', role: 'web' }, 'name'],
      ['hal_server_create', { role: 'web' }, 'name'],
      ['hal_incident_open', { key: 'k', title: 't', severity: 'apocalyptic' }, 'severity'],
      ['hal_job_control', { id: 'job_1', action: 'revert' }, 'action'],
      ['hal_config_set', { key: 'log.level', value: 'debug', serverId: 'srv_local' }, 'serverId'],
      ['hal_settings_set', { key: 'log.level', value: 'debug' }, 'serverId'],
      ['hal_servers_list', { limit: 500 }, 'limit'],
      ['hal_dr_snapshot', { now: true }, 'now'],
      ['hal_module_deploy', { module: '../etc', version: '1', serverId: 'srv_local' }, 'module'],
    ];
    for (const [name, args, path] of cases) {
      const outcome = await h.run(name, args);
      expect(outcome.ok, name).toBe(false);
      if (!outcome.ok) {
        expect(outcome.error.code, name).toBe('validation_failed');
        expect(
          outcome.error.issues?.map((i) => i.path),
          name,
        ).toContain(path);
      }
    }
    const disabled = await executeTool(h.tools, 'hal_dr_snapshot', {}, h.context, { preset: 'read_only' });
    expect(disabled).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await counts()).toEqual(before);
  });
});
