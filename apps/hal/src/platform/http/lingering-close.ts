import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long, at most, a closing connection keeps discarding what the client still sends after HAL's answer. */
export const LINGER_MAX_MS = 5_000;
/** A lingering connection on which nothing arrives for this long is closed at once. */
export const LINGER_IDLE_MS = 1_000;

/** Settings of {@link lingerBeforeClose} (tests shorten them). */
export interface LingerSettings {
  maxMs?: number;
  idleMs?: number;
}

/**
 * Closes HTTP connections the way nginx's "lingering close" does, so that a client still sending a body HAL refused
 * (`413 payload_too_large` from a declared length or at the first byte over the cap, `415` from the headers) reads
 * the answer instead of a reset.
 *
 * Why: when a response ends on a connection that will not be kept alive (the client sent `Connection: close`), Node
 * ends the socket and destroys it as soon as the answer is flushed. Destroying a TCP socket whose receive queue
 * still holds unread bytes makes the kernel send a reset, and a reset makes the client's kernel drop the answer
 * the client has not read yet: the sender of a big body sees `ECONNRESET`, never the 413. Here, instead, the socket
 * is half-closed (the answer and a FIN go out) and what the client still sends is read and discarded (never kept:
 * memory stays flat) until the client closes its side, nothing arrives for {@link LINGER_IDLE_MS}, or
 * {@link LINGER_MAX_MS} have passed.
 *
 * @example
 * const server = serve({ fetch: app.fetch, port });
 * lingerBeforeClose(server);
 */
export function lingerBeforeClose(server: Server, settings: LingerSettings = {}): void {
  const maxMs = settings.maxMs ?? LINGER_MAX_MS;
  const idleMs = settings.idleMs ?? LINGER_IDLE_MS;
  server.on('connection', (socket: Socket) => {
    const destroySoon = socket.destroySoon.bind(socket);
    // Node's HTTP server calls `destroySoon()` when the last response of a connection that is not kept alive ends
    // (and nowhere else on a server socket): that is the moment a refused body can still be on the wire.
    socket.destroySoon = () => {
      // The client already closed its side, or the socket is gone: nothing can arrive, close as Node would.
      if (socket.readableEnded || socket.destroyed || !socket.readable) {
        destroySoon();
        return;
      }
      const cut = () => {
        clearTimeout(deadline);
        socket.destroy();
      };
      const deadline = setTimeout(cut, maxMs);
      deadline.unref();
      socket.once('close', () => clearTimeout(deadline));
      // The client's FIN: everything it sent has been read, so the close is clean.
      socket.once('end', cut);
      socket.setTimeout(idleMs, cut);
      // The answer and our FIN go out; the read side stays open. Node's parser keeps discarding the rest of the
      // refused body (the request was dumped), and `resume` keeps the socket flowing if nothing else reads it.
      socket.end();
      socket.resume();
    };
  });
}
