// The AI connections page (`/ops/ai`): the slot ui-panel mounts into.
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import { usePageText } from './pages-locale.js';

/** `/ops/ai`: the slot the AI connections screen (ui-panel) mounts into. */
export function AiView() {
  const { t } = usePageText();
  return (
    <>
      <p class="muted">{t('ai_intro')}</p>
      <div id="hal-ai-connections" data-hal-connections=""></div>
    </>
  );
}
