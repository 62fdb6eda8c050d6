import { isMessageKey, type Translator } from './i18n/index.js';

/** The kinds of setup guide a provider preset carries, with the catalogue suffix of each. */
const GUIDE_KINDS = [
  ['apiKey', 'api_key'],
  ['oauth', 'oauth'],
  ['cli', 'cli'],
] as const;

/** A provider id as it appears in a catalogue key (`local-cli` → `local_cli`). */
function keyPart(id: string): string {
  return id.replace(/[^a-z0-9]/gi, '_');
}

/**
 * A provider's name on the connections screen: brand names ("Anthropic (Claude)") as HAL lists them, and the
 * two that describe rather than name (`other`, `local-cli`) from the catalogue, in the reader's language.
 */
export function providerLabel(t: Translator, preset: { id: string; label: string }): string {
  const key = `provider_label_${keyPart(preset.id)}`;
  return isMessageKey(key) ? t(key) : preset.label;
}

/**
 * A provider's setup guide, one line per kind it has (key, OAuth, CLI), from the catalogue in the reader's
 * language. The server's English line is kept only for a provider this version of the catalogue does not know.
 */
export function providerGuideLines(
  t: Translator,
  preset: { id: string; guide: { apiKey?: string; oauth?: string; cli?: string } },
): string[] {
  const lines: string[] = [];
  for (const [field, suffix] of GUIDE_KINDS) {
    const english = preset.guide[field];
    if (!english) continue;
    const key = `guide_${keyPart(preset.id)}_${suffix}`;
    lines.push(isMessageKey(key) ? t(key) : english);
  }
  return lines;
}
