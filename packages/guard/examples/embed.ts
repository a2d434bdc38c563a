// Embedding the guard chain in a plain async function, with the in-memory ports.
// Run it: `npx tsx --conditions=@agw/source packages/guard/examples/embed.ts` (from the repo root).
import { type ErrorCode, errorCodes } from '@agw/contracts';
import {
  createAjvSchemaValidator,
  createMemoryApprovalStore,
  createMemoryAuditSink,
  createMemoryInstallationStore,
  createMemoryKeyStore,
  createMemoryRateLimiter,
  createMemoryWallet,
  createStandardChain,
  createStaticEgressPolicy,
  type GuardCapability,
  type Refusal,
  systemClock,
} from '@agw/guard';

const greet: GuardCapability = {
  id: 'demo.greeting.create',
  version: '1.0.0',
  risk_level: 'low',
  scopes: ['demo:write'],
  cost_credits: '0.25',
  mutating: true,
  input_schema: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
  },
};

/** Sets up the ports, one approved installation with 1 credit, and returns `invoke` and its key. */
export function createDemo() {
  const clock = systemClock;
  const keys = createMemoryKeyStore();
  const installations = createMemoryInstallationStore();
  const wallet = createMemoryWallet({ clock });
  const audit = createMemoryAuditSink();
  const chain = createStandardChain({
    clock,
    keys,
    installations,
    wallet,
    audit,
    validator: createAjvSchemaValidator(),
    approvals: createMemoryApprovalStore(),
    egress: createStaticEgressPolicy([]),
    rateLimiter: createMemoryRateLimiter({ clock }),
    rateLimits: { perInstallation: { limit: 100, windowSeconds: 60 } },
  });

  const ids = { installation_id: 'inst-1', organization_id: 'org-1' };
  const { token } = keys.issue({ ...ids, scopes: ['demo:write'] });
  const verifiedAt = new Date().toISOString();
  installations.set({
    ...ids,
    owner_verified_at: verifiedAt,
    agent_email: null,
    agent_email_verified_at: null,
    operator_approval_status: 'approved',
    organization_is_active: true,
  });
  wallet.credit(ids.organization_id, '1');

  /** One invoke: admission (guards 1–6), then the handler between audit, billing, egress and settle. */
  async function invoke(authorization: string, params: unknown, idempotencyKey: string) {
    const admission = await chain.admit({ authorization, capability: greet, params, idempotencyKey });
    // A refusal or challenge comes back settled (audited): answer it, there is nothing left to run.
    if (admission.outcome !== 'admitted') return answerRefusal(admission);
    const executed = await admission.execute(({ principal }) => ({
      greeting: `Hello, ${(params as { name: string }).name}!`, // the handler
      installation: principal.installation_id,
    }));
    if (executed.outcome === 'failed') {
      return errorAnswer(executed.failure.code, 'The handler failed.', executed.settlement.auditId);
    }
    if (executed.outcome !== 'succeeded') return answerRefusal(executed);
    const { settlement } = executed;
    return {
      status: 200,
      body: {
        status: 'succeeded',
        result: executed.value,
        audit_id: settlement.auditId,
        cost: { credits: settlement.chargedCredits },
      },
    };
  }

  return { invoke, token, wallet, audit };
}

/** A settled refusal as an HTTP-like answer: a challenge is a 200 `pending_approval`, the rest errors. */
function answerRefusal(refusal: Refusal) {
  const auditId = refusal.settlement.auditId;
  if (refusal.outcome === 'challenge') {
    return {
      status: 200,
      body: { status: 'pending_approval', approval: refusal.decision.approval, audit_id: auditId },
    };
  }
  if (refusal.outcome === 'fault') return errorAnswer(refusal.code, 'Internal error.', auditId);
  return errorAnswer(refusal.decision.code, refusal.decision.message, auditId);
}

function errorAnswer(code: ErrorCode, message: string, auditId: string | undefined) {
  const { status, retryable } = errorCodes[code];
  return { status, body: { error: { code, message, retryable, audit_id: auditId } } };
}

/** Runs three invokes and returns what happened, one line each. */
export async function main(): Promise<string[]> {
  const { invoke, token, wallet } = createDemo();
  const lines: string[] = [];
  const ok = await invoke(`Bearer ${token}`, { name: 'Ada' }, 'demo-key-000000000001');
  lines.push(`${ok.status} ${JSON.stringify(ok.body)}`);
  const invalid = await invoke(`Bearer ${token}`, { name: '' }, 'demo-key-000000000002');
  lines.push(`${invalid.status} ${JSON.stringify(invalid.body)}`);
  const wrongKey = await invoke('Bearer agw_ak_000000000000.nope', { name: 'Ada' }, 'demo-key-000000000003');
  lines.push(`${wrongKey.status} ${JSON.stringify(wrongKey.body)}`);
  const { balance_credits } = await wallet.getSnapshot('org-1', new Date());
  lines.push(`balance ${balance_credits}`);
  return lines;
}

if (process.argv[1]?.endsWith('embed.ts')) {
  for (const line of await main()) console.log(line);
}
