import type { IncomingHttpHeaders } from 'node:http';
import type { MetaToolContext } from '../http/exchange.js';
import type { GatewayState } from '../http/state.js';

/**
 * One MCP tool call seen as a meta-tool request: the handlers of the HTTP routes read the request
 * from it and write their answer to it, with Koa's semantics (setting `body` without an explicit
 * status answers 200; headers are case-insensitive). The MCP endpoint then turns the answer into a
 * tool result.
 */
export class McpExchange implements MetaToolContext {
  readonly method = 'POST';
  readonly response = { get: (field: string): string => this.#headers.get(field.toLowerCase()) ?? '' };
  type = '';
  #status = 404;
  #explicitStatus = false;
  #body: unknown;
  readonly #headers = new Map<string, string>();

  constructor(
    readonly headers: IncomingHttpHeaders,
    readonly ip: string,
    public state: GatewayState,
  ) {}

  get status(): number {
    return this.#status;
  }

  set status(value: number) {
    this.#status = value;
    this.#explicitStatus = true;
  }

  get body(): unknown {
    return this.#body;
  }

  set body(value: unknown) {
    this.#body = value;
    if (!this.#explicitStatus) this.#status = 200;
  }

  set(field: string, value: string): void {
    this.#headers.set(field.toLowerCase(), value);
  }

  /** The response headers the handler set (lowercase names). */
  get responseHeaders(): ReadonlyMap<string, string> {
    return this.#headers;
  }

  /** The answer as a JSON value, whether the handler set an object, a JSON string or stored bytes. */
  json(): unknown {
    const body = this.#body;
    if (Buffer.isBuffer(body)) return JSON.parse(body.toString('utf8'));
    if (typeof body === 'string') return JSON.parse(body);
    return body;
  }
}
