// Issue 28, finding 4: the list/get operations of the mutating `*.manage` capabilities are reads, and
// describe says which operations read and which change state.
import { buildCapabilityDescription, capabilityContracts, createValidator } from '@agw/contracts';
import { describe, expect, it } from 'vitest';

const manage = capabilityContracts.filter((contract) => contract.id.endsWith('.manage'));

describe('read operations', () => {
  it('every mutating *.manage capability declares its list or get as a read operation of its own', () => {
    expect(manage.length).toBeGreaterThanOrEqual(7);
    const validator = createValidator();
    for (const contract of manage) {
      expect(contract.mutating, contract.id).toBe(true);
      const reads = contract.read_operations ?? [];
      expect(reads.length, contract.id).toBeGreaterThan(0);
      for (const operation of reads) {
        expect(['list', 'get'], contract.id).toContain(operation);
        expect(validator.validate(contract.input_schema, { operation }).valid, contract.id).toBe(true);
      }
    }
  });

  it('describe lists the read and the mutating operations', () => {
    const bookings = manage.find((contract) => contract.id === 'calendar.booking.manage');
    expect(bookings).toBeDefined();
    const described = buildCapabilityDescription(bookings as (typeof manage)[number]);
    expect(described).toMatchObject({
      idempotency_key_required: true,
      read_operations: ['list'],
      mutating_operations: ['update', 'cancel'],
    });
    const plain = capabilityContracts.find((contract) => contract.id === 'billing.document.create_draft');
    const draft = buildCapabilityDescription(plain as (typeof manage)[number]);
    expect(draft).not.toHaveProperty('read_operations');
    expect(draft).not.toHaveProperty('mutating_operations');
  });
});
