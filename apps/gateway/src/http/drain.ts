import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** The HTTP side of a graceful shutdown (SIGTERM): see {@link createDrain}. */
export interface Drain {
  /** True from {@link begin} on: `/health/ready` answers 503. */
  readonly draining: boolean;
  /** `listener` with every connection and request tracked, and `Connection: close` once draining. */
  track(listener: RequestListener): RequestListener;
  /**
   * Stops accepting connections and resolves once every open connection has ended, or with false after
   * `graceMs`, when the connections still open are cut.
   */
  begin(graceMs: number): Promise<boolean>;
}

// A connection idle since before the drain, with no request for this long, is closed: a client that
// reuses keep-alive connections in a burst sends its next request within milliseconds, so closing a
// connection idle this long cannot cut a request its client had already written.
const QUIET_MS = 1000;
const SWEEP_MS = 100;

interface ConnectionState {
  active: number;
  idleSince: number;
}

/**
 * Drains `server` without cutting a request: from {@link Drain.begin} on, the listening socket closes
 * (new connections are refused, which a client or a load balancer may retry elsewhere: nothing was
 * sent), each response, the ones in flight included while their headers are unsent, says
 * `Connection: close` so its client does not reuse the connection, and a connection left idle from
 * before the drain closes once quiet. Node's own `server.close()` closes idle keep-alive connections at
 * once: a client that writes its next request on one at that moment sees ECONNRESET (issue 31).
 */
export function createDrain(server: Server): Drain {
  const connections = new Map<Socket, ConnectionState>();
  const responses = new Set<ServerResponse>();
  let draining = false;
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: performance.now() });
    socket.once('close', () => connections.delete(socket));
  });
  const closeIfDone = (response: ServerResponse) => {
    if (!responses.delete(response)) return;
    const state = connections.get(response.socket as Socket);
    if (state === undefined) return;
    state.active -= 1;
    state.idleSince = performance.now();
  };
  return {
    get draining() {
      return draining;
    },
    track(listener) {
      return (request: IncomingMessage, response: ServerResponse) => {
        const state = connections.get(request.socket);
        if (state !== undefined) state.active += 1;
        responses.add(response);
        response.once('finish', () => closeIfDone(response));
        response.once('close', () => closeIfDone(response));
        if (draining) response.setHeader('connection', 'close');
        listener(request, response);
      };
    },
    begin(graceMs) {
      draining = true;
      for (const response of responses) {
        if (!response.headersSent) response.setHeader('connection', 'close');
      }
      // net.Server's close, not http.Server's: the latter also closes idle keep-alive connections now.
      const closed = new Promise<boolean>((resolve) =>
        NetServer.prototype.close.call(server, () => resolve(true)),
      );
      const sweep = setInterval(() => {
        const now = performance.now();
        for (const [socket, state] of connections) {
          if (state.active === 0 && now - state.idleSince >= QUIET_MS) socket.end();
        }
      }, SWEEP_MS);
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      });
      return Promise.race([closed, expired]).then(async (done) => {
        clearInterval(sweep);
        clearTimeout(timer);
        if (!done) {
          for (const socket of connections.keys()) socket.destroy();
          await closed;
        }
        return done;
      });
    },
  };
}
