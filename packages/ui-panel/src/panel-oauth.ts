import type { PanelApi } from './panel-api.js';
import { OAUTH_MESSAGE_TYPE } from './panel-connections.js';
import { type DialogContext, withReauth } from './panel-dialogs.js';

/** What the OAuth callback page reports back to the page that opened the popup. */
export interface OAuthResult {
  ok: boolean;
  connectionId: string | null;
  code?: string;
  message?: string;
}

/** Opens the OAuth login in a popup window (the default of the screens' `openPopup` setting). */
export function openOAuthPopup(window: Window, url: string): void {
  window.open(url, 'hal-oauth', 'popup,width=560,height=720');
}

/**
 * Starts an OAuth login (`POST …/connections/:id/oauth/start`, a key change, so behind the re-auth
 * dialog) and opens the authorize URL in a popup; the callback page reports back through
 * {@link listenForOAuthResult}.
 *
 * @example
 * await startOAuthLogin(dialogs, connection.id, (url) => openOAuthPopup(window, url));
 */
export async function startOAuthLogin(
  dialogs: DialogContext & { api: PanelApi },
  connectionId: string,
  openPopup: (url: string) => void,
): Promise<void> {
  const { authorizeUrl } = await withReauth(dialogs, () =>
    dialogs.api.send<{ authorizeUrl: string }>(
      'POST',
      `/ops/api/ai/connections/${encodeURIComponent(connectionId)}/oauth/start`,
    ),
  );
  openPopup(authorizeUrl);
}

/**
 * Listens for the OAuth callback page's report; only a message from this page's own origin counts.
 * Returns a function that stops listening.
 */
export function listenForOAuthResult(window: Window, onResult: (result: OAuthResult) => void): () => void {
  const listener = (event: MessageEvent) => {
    if (event.origin !== window.location.origin) return;
    const data = event.data as Partial<OAuthResult> & { type?: string };
    if (data?.type !== OAUTH_MESSAGE_TYPE) return;
    onResult({
      ok: data.ok === true,
      connectionId: typeof data.connectionId === 'string' ? data.connectionId : null,
      ...(typeof data.code === 'string' ? { code: data.code } : {}),
      ...(typeof data.message === 'string' ? { message: data.message } : {}),
    });
  };
  window.addEventListener('message', listener);
  return () => window.removeEventListener('message', listener);
}
