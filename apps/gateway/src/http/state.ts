import type { Logger } from '../logger.js';

/** What the gateway's middleware keeps on `ctx.state` for the rest of the request. */
export interface GatewayState {
  /** The request id echoed in X-Request-Id (the client's, when sane, otherwise a UUID v4). */
  requestId: string;
  /** A fresh UUID v4 per request; named in the envelope and the audit row when the request fails. */
  auditId: string;
  /** A child logger bound to this request's id. */
  log: Logger;
  /** The parsed JSON body, set by the `jsonBody` middleware on routes that take one. */
  body?: unknown;
  /** The error code the request ended with, for the request log line. */
  errorCode?: string;
  /**
   * Who asks, once the request's installation key was checked (`installation:<id>`): a failure after
   * that check is audited with it. `anonymous` when unset.
   */
  actor?: string;
  /**
   * `info` for a refusal the protocol expects (an MCP client's GET /mcp, asking for a stream this
   * stateless server does not keep): audited as `info`, not as a failure.
   */
  auditOutcome?: 'info';
}
