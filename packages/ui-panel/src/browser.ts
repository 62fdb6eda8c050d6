/**
 * Browser entry (`dist/browser/panel.js`): mounts the panel into `<aside data-hal-panel>` and the
 * connections screen into `<div data-hal-connections>` when the page has them.
 */
import { mountPanel } from './panel-app.js';
import { mountConnections } from './panel-connections.js';

function start(): void {
  const panel = document.querySelector<HTMLElement>('[data-hal-panel]');
  if (panel) mountPanel(panel);
  const connections = document.querySelector<HTMLElement>('[data-hal-connections]');
  if (connections) mountConnections(connections);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
