import { type CapabilityHandler, capabilityHandlers, defineCapabilityHandler } from '@agw/capabilities';
import { type CapabilityContract, capabilityContracts } from '@agw/contracts';
import type { CatalogContract } from '@agw/gateway';

/** A real catalog contract (`core.org.current.get`: low risk, scope `core:read`, free) to derive test capabilities from. */
export const contractTemplate = capabilityContracts.find(
  (contract) => contract.id === 'core.org.current.get',
) as CapabilityContract;

/** What a test capability changes of {@link contractTemplate}; `input_schema` as a plain JSON Schema. */
export type DemoContract = Omit<Partial<CapabilityContract>, 'input_schema'> & {
  readonly id: string;
  readonly input_schema?: object;
};

/**
 * A test capability: {@link contractTemplate} with `contract`'s changes (the domain is the id's first
 * segment unless given) and `handle` as its handler.
 *
 * @example
 * const paid = demoCapability({ id: 'demo.paid.read', cost_credits: '0.5' }, async () => ({ ok: true }));
 */
export function demoCapability<Input = Record<string, never>, Output = unknown>(
  contract: DemoContract,
  handle: CapabilityHandler<Input, Output>['handle'],
): CapabilityHandler<Input, Output> {
  return defineCapabilityHandler<Input, Output>({
    contract: {
      ...contractTemplate,
      domain: contract.id.split('.')[0] as string,
      ...contract,
    } as CapabilityContract,
    handle,
  });
}

/** The gateway's own handlers plus `extra`, and the catalog listing exactly them (useGateway's options). */
export function withCapabilities(
  // biome-ignore lint/suspicious/noExplicitAny: handlers of any input and output type are listed together.
  ...extra: readonly CapabilityHandler<any, any>[]
): { handlers: CapabilityHandler<never>[]; catalog: CatalogContract[] } {
  const handlers = [...capabilityHandlers, ...extra] as CapabilityHandler<never>[];
  return { handlers, catalog: handlers.map((handler) => handler.contract as CatalogContract) };
}

/**
 * `demo.stamp.create`: a paid (0.5 credits) mutation with a trivial handler, so charges, idempotent
 * replays and schema refusals are tested without any real capability's content checks.
 */
export const demoStamp = demoCapability<{ label: string }, { stamped: string }>(
  {
    id: 'demo.stamp.create',
    summary: 'Stamp a label (test capability).',
    scopes: ['core:read'],
    cost_credits: '0.5',
    mutating: true,
    input_schema: {
      type: 'object',
      properties: { label: { type: 'string', minLength: 1 } },
      required: ['label'],
      additionalProperties: false,
    },
  },
  async (input) => ({ stamped: input.label }),
);

/** `demo.vault.open`: risk high, so the policy guard asks an operator to approve every run. */
export const demoVault = demoCapability({ id: 'demo.vault.open', risk_level: 'high' }, async () => ({
  opened: true,
}));
