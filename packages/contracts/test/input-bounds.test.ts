// Issue 12, findings 4 and 6: numbers every handler can compute with, and names that look like what
// they are. Both rules live in the schemas, so describe, dry_run, invoke and MCP refuse alike.
import {
  type CapabilityContract,
  capabilityContracts,
  createValidator,
  DISPLAY_TEXT_MESSAGE,
  findCapabilityContract,
  isDisplayText,
  isMultilineText,
  MAX_CREDITS,
} from '@agw/contracts';
import { describe, expect, it } from 'vitest';
import { createDraftParams } from './fixtures.js';

const validator = createValidator();

function contract(id: string): CapabilityContract {
  const found = findCapabilityContract(id);
  if (!found) throw new Error(`no contract ${id}`);
  return found;
}

const budget = contract('wallet.agent_budget.guard.check');
const upload = contract('documents.document.upload');
const budgetParams = (estimated_cost_credits: unknown) => ({
  capability_id: 'core.org.current.get',
  estimated_cost_credits,
});
const uploadParams = (file_name: string) => ({
  file_name,
  mime_type: 'text/plain',
  content_base64: 'aGVsbG8=',
});

/** Every `type: number|integer` node of an input schema, with its path. */
function numericNodes(node: unknown, path = ''): Array<[string, Record<string, unknown>]> {
  if (Array.isArray(node)) return node.flatMap((item, index) => numericNodes(item, `${path}/${index}`));
  if (node === null || typeof node !== 'object') return [];
  const schema = node as Record<string, unknown>;
  const own: Array<[string, Record<string, unknown>]> =
    schema.type === 'number' || schema.type === 'integer' ? [[path, schema]] : [];
  return [...own, ...Object.entries(schema).flatMap(([key, value]) => numericNodes(value, `${path}/${key}`))];
}

describe('numeric inputs are bounded', () => {
  it('every number and integer of every capability input schema has a maximum', () => {
    const unbounded = capabilityContracts.flatMap((capability) =>
      numericNodes(capability.input_schema)
        .filter(
          ([, schema]) => typeof schema.maximum !== 'number' && typeof schema.exclusiveMaximum !== 'number',
        )
        .map(([path]) => `${capability.id}${path}`),
    );
    expect(unbounded).toEqual([]);
  });

  it('every non-integer number input carries the 6-decimal format', () => {
    const loose = capabilityContracts.flatMap((capability) =>
      numericNodes(capability.input_schema)
        .filter(([, schema]) => schema.type === 'number' && schema.format !== 'decimal-6')
        .map(([path]) => `${capability.id}${path}`),
    );
    expect(loose).toEqual([]);
  });

  it('estimated_cost_credits refuses 1e308, 5e-324, 2^53+1 and long decimals; accepts -0 and 6 decimals', () => {
    const refused = [
      1e308,
      -1e308,
      5e-324,
      2 ** 53 + 1,
      Number('0.1234567890123456789'),
      MAX_CREDITS + 1,
      -1,
    ];
    for (const value of refused) {
      const result = validator.validate(budget.input_schema, budgetParams(value));
      expect(result.valid, String(value)).toBe(false);
      if (!result.valid) expect(result.violations[0]?.schema_pointer).toBe('/estimated_cost_credits');
    }
    for (const value of [0, -0, 0.3, 0.000001, 123456.123456, MAX_CREDITS]) {
      expect(validator.validate(budget.input_schema, budgetParams(value)), String(value)).toEqual({
        valid: true,
      });
    }
  });

  it('explains the decimal rule', () => {
    const result = validator.validate(budget.input_schema, budgetParams(0.1234567));
    expect(result).toEqual({
      valid: false,
      violations: [
        {
          schema_pointer: '/estimated_cost_credits',
          keyword: 'format',
          message: 'must have at most 6 digits after the decimal point',
        },
      ],
    });
  });

  it('bounds billing amounts, quantities, percentages and offsets', () => {
    const draft = contract('billing.document.create_draft');
    const line = createDraftParams.lines[0];
    const withLine = (patch: Record<string, unknown>) => ({
      ...createDraftParams,
      lines: [{ ...line, ...patch }],
    });
    expect(validator.validate(draft.input_schema, withLine({ quantity: 2.5, unit_price: 19.99 })).valid).toBe(
      true,
    );
    for (const patch of [
      { quantity: 1e308 },
      { unit_price: 1e13 },
      { discount_amount: 0.0000001 },
      { tax_percent: 101 },
    ]) {
      expect(validator.validate(draft.input_schema, withLine(patch)).valid, JSON.stringify(patch)).toBe(
        false,
      );
    }
    const payment = contract('billing.payment.record');
    const paid = (amount: number) => ({ document_id: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', amount });
    expect(validator.validate(payment.input_schema, paid(100.5)).valid).toBe(true);
    expect(validator.validate(payment.input_schema, paid(1e308)).valid).toBe(false);
    expect(validator.validate(payment.input_schema, paid(0)).valid).toBe(false);
    const list = contract('billing.document.list');
    expect(validator.validate(list.input_schema, { offset: 1e308 }).valid).toBe(false);
  });
});

describe('display text', () => {
  const deceptive = [
    ['RLO', 'invoice\u202Efdp.exe'],
    ['LRE', 'a\u202Ab'],
    ['PDF', 'a\u202Cb'],
    ['LRI', 'a\u2066b'],
    ['PDI', 'a\u2069b'],
    ['LRM', 'a\u200Eb'],
    ['RLM', 'a\u200Fb'],
    ['ALM', 'a\u061Cb'],
    ['division slash', 'etc\u2215passwd'],
    ['fullwidth solidus', 'etc\uFF0Fpasswd'],
    ['fraction slash', 'a\u2044b'],
    ['big solidus', 'a\u29F8b'],
    ['fullwidth reverse solidus', 'a\uFF3Cb'],
  ] as const;

  it.each(deceptive)('file_name with %s is a violation at /file_name with a clear message', (_, name) => {
    expect(validator.validate(upload.input_schema, uploadParams(name))).toEqual({
      valid: false,
      violations: [{ schema_pointer: '/file_name', keyword: 'format', message: DISPLAY_TEXT_MESSAGE }],
    });
  });

  it('accepts ordinary names in any script, emoji and combining marks included', () => {
    for (const name of [
      'report.pdf',
      'Überblick 2026.txt',
      'שלום.txt',
      'عربي.txt',
      '日本語.txt',
      '😀.txt',
      'e\u0301.txt',
    ]) {
      expect(isDisplayText(name), name).toBe(true);
      expect(validator.validate(upload.input_schema, uploadParams(name)), name).toEqual({ valid: true });
    }
  });

  it.each([
    ['CR/LF', 'Acme\r\nBcc: x@example.org'],
    ['NUL', 'a\u0000b'],
    ['escape', 'a\u001Bb'],
    ['U+0001', 'a\u0001b'],
    ['DEL', 'a\u007Fb'],
    ['C1 NEL', 'a\u0085b'],
    ['a tab', 'a\tb'],
    ['a lone high surrogate', 'a\uD800b'],
    ['a lone low surrogate', 'a\uDC00'],
  ])('refuses a display text with %s', (_, name) => {
    expect(isDisplayText(name)).toBe(false);
    const register = { owner_email: 'owner@example.com', app: { slug: 'my-agent', name } };
    expect(validator.validate('RegisterRequest', register)).toEqual({
      valid: false,
      violations: [{ schema_pointer: '/app/name', keyword: 'format', message: DISPLAY_TEXT_MESSAGE }],
    });
  });

  it('keeps line breaks and tabs in multi-line text and refuses every other control character', () => {
    expect(isMultilineText('Line one\r\nline two\tindented')).toBe(true);
    expect(isMultilineText('שלום 😀 e\u0301')).toBe(true);
    for (const text of ['a\u0000', 'a\u0001', 'a\u001B[31m', 'a\u007F', 'a\u009B', 'a\uD800', '\uDFFFa']) {
      expect(isMultilineText(text), JSON.stringify(text)).toBe(false);
    }
  });

  it('covers app and organization names and capability titles', () => {
    const register = {
      owner_email: 'owner@example.com',
      app: { slug: 'my-agent', name: 'My\u202EAgent' },
    };
    expect(validator.validate('RegisterRequest', register)).toMatchObject({
      valid: false,
      violations: [{ schema_pointer: '/app/name', keyword: 'format', message: DISPLAY_TEXT_MESSAGE }],
    });
    const organization = { owner_email: 'owner@example.com', organization: { name: 'Acme\uFF0FEvil' } };
    expect(validator.validate('OrganizationsRequest', organization)).toMatchObject({
      valid: false,
      violations: [{ schema_pointer: '/organization/name' }],
    });
    const draft = contract('billing.document.create_draft');
    const titled = validator.validate(draft.input_schema, { ...createDraftParams, title: 'Q\u2066' });
    expect(titled.valid === false && titled.violations[0]).toEqual({
      schema_pointer: '/title',
      keyword: 'format',
      message: DISPLAY_TEXT_MESSAGE,
    });
    const booking = contract('calendar.booking.manage');
    expect(validator.validate(booking.input_schema, { operation: 'list', title: 'x\u200F' }).valid).toBe(
      false,
    );
  });
});
