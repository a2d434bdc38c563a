import * as contracts from '@agw/contracts';
import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports the names other packages code against', () => {
    const functions = [
      'errorEnvelope',
      'isErrorCode',
      'createValidator',
      'findCapabilityContract',
      'buildCapabilityCatalog',
      'buildMcpManifest',
      'buildMcpTools',
      'buildOpenApiDocument',
      'buildCapabilityDescription',
      'toSearchResultItem',
      'buildOtpExtraction',
      'extractOtpFromBody',
      'toPlainJsonSchema',
    ] as const;
    for (const name of functions) expect(contracts[name], name).toBeTypeOf('function');
    expect(contracts.INTERFACE_VERSION).toBe('1.0');
    expect(contracts.CATALOG_SCHEMA_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(contracts.SCHEMA_BASE_URI).toBe('https://agent-gateway.dev/schemas/v1');
    expect(Array.isArray(contracts.capabilityContracts)).toBe(true);
    expect(Array.isArray(contracts.metaTools)).toBe(true);
    expect(Array.isArray(contracts.operations)).toBe(true);
    expect(typeof contracts.schemas).toBe('object');
    expect(typeof contracts.errorCodes).toBe('object');
  });
});

describe('agent OTP extraction', () => {
  it('the extraction block validates and its regex finds the code on a standalone line', () => {
    const extraction = contracts.buildOtpExtraction('c0ffee42');
    expect(contracts.createValidator().validate('OtpExtraction', extraction)).toEqual({ valid: true });
    expect(extraction.imap_search.contains).toBe('Ref: c0ffee42');
    const body = 'Hello,\r\nyour code:\r\nCode: 48213977\r\nNot a Code: 111111 line';
    expect(contracts.extractOtpFromBody(body, extraction.code_regex)).toBe('48213977');
    expect(contracts.extractOtpFromBody('Code: 12 (too short)')).toBeUndefined();
  });
});
