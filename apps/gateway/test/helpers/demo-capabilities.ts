import { defineCapabilityHandler } from '@agw/capabilities';
import { type CapabilityContract, capabilityContracts } from '@agw/contracts';

/** A real catalog contract (`core.org.current.get`: low risk, scope `core:read`, free) to derive test capabilities from. */
export const contractTemplate = capabilityContracts.find(
  (contract) => contract.id === 'core.org.current.get',
) as CapabilityContract;

/**
 * `demo.stamp.create`: a paid (0.5 credits) mutation with a trivial handler, so charges, idempotent
 * replays and schema refusals are tested without any real capability's content checks.
 */
export const demoStamp = defineCapabilityHandler<{ label: string }, { stamped: string }>({
  contract: {
    ...contractTemplate,
    id: 'demo.stamp.create',
    domain: 'demo',
    summary: 'Stamp a label (test capability).',
    scopes: ['core:read'],
    cost_credits: '0.5',
    mutating: true,
    input_schema: {
      type: 'object',
      properties: { label: { type: 'string', minLength: 1 } },
      required: ['label'],
      additionalProperties: false,
    } as never,
  },
  async handle(input) {
    return { stamped: input.label };
  },
});

/** `demo.vault.open`: risk high, so the policy guard asks an operator to approve every run. */
export const demoVault = defineCapabilityHandler({
  contract: { ...contractTemplate, id: 'demo.vault.open', domain: 'demo', risk_level: 'high' },
  async handle() {
    return { opened: true };
  },
});
