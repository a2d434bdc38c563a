// A handler's `ctx.signal` tells whatever it left running (a fetch, a timer) that its run is over: live
// while the handler runs, aborted once the invoke answered — also when first read only after that.
import type { CapabilityContext } from '@agw/capabilities';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoCapability, withCapabilities } from './helpers/demo-capabilities.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

let keptSignal: AbortSignal | undefined;
let keptContext: CapabilityContext | undefined;

const watch = demoCapability<{ read: boolean }, { aborted_while_running: boolean | null }>(
  {
    id: 'demo.signal.watch',
    input_schema: {
      type: 'object',
      properties: { read: { type: 'boolean' } },
      required: ['read'],
      additionalProperties: false,
    },
  },
  async ({ read }, ctx) => {
    keptContext = ctx;
    if (!read) return { aborted_while_running: null };
    keptSignal = ctx.signal;
    return { aborted_while_running: keptSignal.aborted };
  },
);

const lastContext = () => keptContext;

const gateway = useGateway(withCapabilities(watch));
let key: string;

beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway, '1'));
});

const invoke = (read: boolean) =>
  gateway.client.post('/mcp/invoke', { id: 'demo.signal.watch', params: { read } }, { idem: null, key });

describe("a handler's abort signal", () => {
  it('is live while the handler runs and aborted once the invoke answered', async () => {
    const answer = await invoke(true);
    expect(answer.status).toBe(200);
    expect(answer.json.result).toEqual({ aborted_while_running: false });
    expect(keptSignal?.aborted).toBe(true);
  });

  it('is aborted when a handler first reads it after its run ended', async () => {
    keptContext = undefined;
    const answer = await invoke(false);
    expect(answer.status).toBe(200);
    // Read through a call: the assignment above would narrow the variable to undefined for tsc.
    expect(lastContext()?.signal.aborted).toBe(true);
  });
});
