// Pins that the contracts package plugs into the guards without adapters: a CapabilityContract is a
// GuardCapability and the contracts' validator is a SchemaValidator. Not covered: every contract.
import { type CapabilityContract, capabilityContracts, createValidator } from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { type GuardCapability, type SchemaValidator, schemaGuard } from '../src/index.js';
import { context } from './fixtures.js';

describe('compatibility with @agw/contracts', () => {
  it('accepts a capability contract and the contracts validator as they are', () => {
    const contract: CapabilityContract | undefined = capabilityContracts[0];
    if (contract === undefined) throw new Error('contracts hold no capability');
    const capability: GuardCapability = contract;
    const validator: SchemaValidator = createValidator();
    const guard = schemaGuard({ validator });
    const decision = guard.check(context({ capability, params: { unexpected_property_for_test: true } }));
    expect(decision).toMatchObject({ outcome: 'deny', code: 'validation_failed' });
    expect(JSON.stringify(decision)).toContain('/params/');
  });
});
