import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Answer } from './access-client.js';
import { parseJsonOrUndefined } from './http.js';

/** An official SDK client connected to the gateway's /mcp, with the installation key when given. */
export async function connectMcp(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'agw-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : {},
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST to /mcp, for what the SDK client does not let a test shape. */
export async function rawMcp(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(new URL('/mcp', url), {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
  const text = await response.text();
  const json = parseJsonOrUndefined(text);
  return { status: response.status, headers: response.headers, text, json };
}
