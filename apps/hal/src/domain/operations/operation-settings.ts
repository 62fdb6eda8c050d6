import {
  ALL_SERVERS,
  describeSettingsApply,
  describeSettingsSet,
  impactSummary,
} from '../core/core-impacts.js';
import { SettingSecretArgs, SettingsApplyArgs, SettingsSetArgs } from '../core/core-schemas.js';
import { defineOperation } from './operation-definition.js';

/*
 * Settings (SPEC §1): typed values, globally or per server; confidential values (console only, into the vault);
 * applying the effective values as a job.
 */

/** `settings.set`: one typed key, globally or on one server; confidential keys and secrets are refused early. */
export const settingsSet = defineOperation({
  name: 'settings.set',
  tier: 'high',
  args: SettingsSetArgs,
  identifiers: (args) => (args.serverId === undefined ? [args.key] : [args.serverId, args.key]),
  refuse: (core, args) => core.settings.check(args),
  describe: async (core, args) => {
    const server = args.serverId ? (await core.servers.get({ id: args.serverId })).server : null;
    const { settings } = await core.settings.get({
      key: args.key,
      ...(args.serverId === undefined ? {} : { serverId: args.serverId }),
    });
    return describeSettingsSet(
      args,
      server,
      settings.find((s) => s.key === args.key),
    );
  },
  execute: (core, actor, args) => core.settings.set(actor, args),
});

/** `settings.secret_set`: a confidential value into the vault (console only: never a tool, never shown back). */
export const settingsSecretSet = defineOperation({
  name: 'settings.secret_set',
  tier: 'write',
  args: SettingSecretArgs,
  identifiers: (args) => (args.serverId === undefined ? [args.key] : [args.serverId, args.key]),
  describe: async (_core, args) => ({
    action: 'settings.secret_set',
    target: args.serverId ? `server:${args.serverId}` : 'settings:global',
    // The value itself never appears here: only whether it is set or removed.
    impact: args.serverId
      ? impactSummary(args.value === null ? 'impact_secret_unset_server' : 'impact_secret_set_server', {
          key: args.key,
          server: args.serverId,
        })
      : impactSummary(args.value === null ? 'impact_secret_unset' : 'impact_secret_set', { key: args.key }),
    identifiers: [args.key],
  }),
  execute: (core, actor, args) => core.settings.setSecret(actor, args),
});

/** `settings.apply`: a job applies the effective values to one server, or to HAL and every active server. */
export const settingsApply = defineOperation({
  name: 'settings.apply',
  tier: 'high',
  args: SettingsApplyArgs,
  identifiers: (args) => [args.serverId ?? ALL_SERVERS],
  describe: async (core, args) => {
    if (args.serverId === undefined) return describeSettingsApply(null, {});
    const { server } = await core.servers.get({ id: args.serverId });
    const { settings } = await core.settings.get({ serverId: args.serverId });
    const values = Object.fromEntries(settings.filter((s) => !s.confidential).map((s) => [s.key, s.value]));
    return describeSettingsApply(server, values);
  },
  execute: (core, actor, args) => core.settings.apply(actor, args),
});
