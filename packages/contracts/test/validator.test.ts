import {
  ContractValidationError,
  createValidator,
  findCapabilityContract,
  MAX_VIOLATIONS,
} from '@agw/contracts';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createDraftParams, invokeResponse, registerRequest } from './fixtures.js';

const validator = createValidator();

function pointers(result: ReturnType<typeof validator.validate>): string[] {
  return result.valid ? [] : result.violations.map((v) => v.schema_pointer);
}

describe('violations carry RFC 6901 pointers into the value', () => {
  it('required: the pointer names the missing member', () => {
    const result = validator.validate('RegisterRequest', {
      owner_email: 'o@example.com',
      app: { name: 'Acme' },
    });
    expect(result).toEqual({
      valid: false,
      violations: [{ schema_pointer: '/app/slug', keyword: 'required', message: expect.any(String) }],
    });
  });

  it('additionalProperties: the pointer names the extra member, escaped', () => {
    const result = validator.validate('InvokeResponse', { ...invokeResponse, 'a/b~c': 1 });
    expect(result.valid).toBe(false);
    expect(pointers(result)).toEqual(['/a~1b~0c']);
    if (!result.valid) expect(result.violations[0]?.keyword).toBe('additionalProperties');
  });

  it('nested array items: the pointer includes the index', () => {
    const draft = findCapabilityContract('billing.document.create_draft')!;
    const params = {
      ...createDraftParams,
      lines: [createDraftParams.lines[0], { item_name: 'x', quantity: -1, unit_price: 1 }],
    };
    const result = validator.validate(draft.input_schema, params);
    expect(pointers(result)).toEqual(['/lines/1/quantity']);
  });

  it('the root is the empty pointer', () => {
    const result = validator.validate('RegisterRequest', 'not an object');
    expect(pointers(result)).toEqual(['']);
  });

  it('lists every violation (allErrors), capped at 20', () => {
    const result = validator.validate('RegisterRequest', {
      ...registerRequest,
      owner_email: 'x',
      app: { slug: 'A' },
    });
    expect(pointers(result)).toEqual(expect.arrayContaining(['/owner_email', '/app/slug', '/app/name']));

    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`extra${i}`, i]));
    const capped = validator.validate('KeysRotateRequest', many);
    expect(capped.valid).toBe(false);
    if (!capped.valid) expect(capped.violations).toHaveLength(MAX_VIOLATIONS);
  });
});

describe('validator API', () => {
  it('is() narrows and check() returns the value or throws with violations', () => {
    expect(validator.is('InvokeResponse', invokeResponse)).toBe(true);
    expect(validator.check('InvokeResponse', invokeResponse).status).toBe('succeeded');
    let thrown: unknown;
    try {
      validator.check('InvokeResponse', { ...invokeResponse, status: 'nope' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ContractValidationError);
    expect((thrown as ContractValidationError).violations[0]?.schema_pointer).toBe('/status');
  });

  it('validates ad-hoc TypeBox schemas, repeatedly, with the same answer', () => {
    const schema = Type.Object({ n: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
    for (let i = 0; i < 3; i += 1) {
      expect(validator.validate(schema, { n: 1 })).toEqual({ valid: true });
      expect(pointers(validator.validate(schema, { n: 0 }))).toEqual(['/n']);
    }
  });

  it('a foreign schema reusing a known $id does not clash with the registered one', () => {
    const impostor = Type.Object({ x: Type.String() }, { $id: 'https://agent-gateway.dev/schemas/v1/App' });
    expect(validator.validate(impostor, { x: 'y' })).toEqual({ valid: true });
    expect(validator.validate('App', { x: 'y' }).valid).toBe(false);
  });

  it('rejects an unknown schema name loudly', () => {
    expect(() => validator.validate('Nope' as never, {})).toThrow(/Unknown schema name/);
  });
});
