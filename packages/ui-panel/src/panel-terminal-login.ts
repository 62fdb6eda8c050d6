import type { Connection } from '@hal-ai/spec';
import type { DialogContext } from './panel-dialogs.js';
import { openTerminalDialog, type TerminalDialogHandle } from './panel-terminal.js';

const open = new WeakMap<Document, TerminalDialogHandle>();

/**
 * Opens the login terminal on a local CLI connection's login command (at most one such dialog per page);
 * `refresh` runs when HAL has checked the connection again after the session ended, so its status updates
 * without a reload.
 */
export function openLoginTerminal(
  context: DialogContext,
  connection: Connection,
  refresh: () => unknown,
): void {
  const secret = connection.secret as { tool?: string };
  const tool = secret.tool === 'codex' ? 'codex' : 'claude';
  if (open.has(context.document)) return;
  const handle = openTerminalDialog(context, {
    tool,
    command: 'login',
    connectionId: connection.id,
    onConnection: () => void refresh(),
  });
  open.set(context.document, handle);
  void handle.closed.then(() => open.delete(context.document));
}
