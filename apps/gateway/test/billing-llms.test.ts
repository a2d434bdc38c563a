// Every billing example of /llms.txt runs as written against a fresh gateway: the invoke bodies of the
// "Quote to cash" section, in order, with only the `<..._id>` placeholders replaced by the ids the
// earlier steps answered (as the text tells an agent), pending approvals approved by the operator.

import { createAdminClient } from '@agw/client/admin';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
let key: string;

beforeAll(async () => {
  ({ key } = await approvedInstallation(gateway, '10'));
});

// biome-ignore lint/suspicious/noExplicitAny: invoke results are JSON checked by the assertions below.
type Json = any;

/** Which placeholder each step's result defines. */
const DEFINES: Record<string, [placeholder: string, pick: (result: Json) => string]> = {
  'billing.account.save': ['<account_id>', (r) => r.account.id],
  'billing.document.create_draft': ['<quote_id>', (r) => r.document_id],
  'billing.document.convert_quote_to_order': ['<order_id>', (r) => r.document_id],
  'billing.document.convert_order_to_invoice': ['<invoice_id>', (r) => r.document_id],
};

describe('/llms.txt quote to cash', () => {
  it('runs every invoke body of the section in order and ends with a paid invoice', async () => {
    const text = await (await fetch(`${gateway.url}/llms.txt`)).text();
    const section = text.slice(text.indexOf('## Quote to cash'), text.indexOf('## Errors'));
    const bodies = [...section.matchAll(/\{"id":"billing\.[^\n]*\}(?=\.?$)/gm)].map((match) => match[0]);
    expect(bodies.length).toBeGreaterThanOrEqual(10);
    const admin = createAdminClient({ baseUrl: gateway.url, operatorKey: gateway.operatorKey });
    const ids = new Map<string, string>();
    const results: Json[] = [];
    for (const written of bodies) {
      let sent = written;
      for (const [placeholder, id] of ids) sent = sent.replaceAll(placeholder, id);
      expect(sent).not.toMatch(/<[a-z_]+>/);
      const body = JSON.parse(sent) as { id: string; params: unknown; idempotency_key?: string };
      let answer = await gateway.client.post('/mcp/invoke', body, { idem: null, key });
      if (answer.json.status === 'pending_approval') {
        await admin.approveApproval(answer.json.approval.approval_id);
        const retry = {
          ...body,
          idempotency_key: `${body.idempotency_key}-approved`,
          approval_token: answer.json.approval.approval_token,
        };
        answer = await gateway.client.post('/mcp/invoke', retry, { idem: null, key });
      }
      expect(answer.json, `${body.id} as written`).toMatchObject({ status: 'succeeded' });
      results.push(answer.json.result);
      const defines = DEFINES[body.id];
      if (defines !== undefined && !ids.has(defines[0])) ids.set(defines[0], defines[1](answer.json.result));
    }
    const read = results.find(
      (result) => result.document?.document_type === 'invoice' && Array.isArray(result.payments),
    );
    expect(read?.document).toMatchObject({ status: 'paid', balance: 0, total: 357, number: 'RE-2026-00001' });
    expect(read?.payments.map((p: { amount: number }) => p.amount)).toEqual([100, 257]);
  });
});
