import type http from 'node:http';
import { serve } from '@hono/node-server';
import type { createApp } from '../../src/app.js';

/** An in-process HAL app served on a loopback port, for tests that drive it from a real browser. */
export interface ServedApp {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `app` on 127.0.0.1 at a free port. `close` drops kept-alive browser connections first, so a test's
 * `afterAll` does not wait for Chromium to let its sockets go.
 */
export function serveApp(app: ReturnType<typeof createApp>): Promise<ServedApp> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            (server as http.Server).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
    server.once('error', reject);
  });
}
