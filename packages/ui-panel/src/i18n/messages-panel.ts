/**
 * The panel's namespace of the message catalogue (tabs, messages, proposal cards, dialogs, the login
 * terminal). The panel's strings move here from `panel-i18n.ts`; keys are flat snake_case with a `panel_`
 * prefix so they never meet a console key. `en` `satisfies` the Korean table's keys.
 */
const ko = {
  panel_title: 'AI',
} as const satisfies Record<string, string>;

const en = {
  panel_title: 'AI',
} as const satisfies Record<keyof typeof ko, string>;

/** The panel's namespace of the message catalogue (see `i18n-catalogue.ts`). */
export const PANEL_MESSAGES = { ko, en } as const;
