import * as contracts from '@agw/contracts';
import { describe, expect, it } from 'vitest';

const RUNTIME_EXPORTS = [
  'AGENT_OTP_CODE_REGEX',
  'API_KEY_PATTERN',
  'APP_SLUG_PATTERN',
  'ARTIFACT_CONTENT_FORMATS',
  'CALENDAR_SLUG_PATTERN',
  'CAPABILITY_ID_PATTERN',
  'CAPABILITY_VERSION_PATTERN',
  'CATALOG_SCHEMA_VERSION',
  'ContractValidationError',
  'CreditAmount',
  'DECIMAL_6_FORMAT',
  'DECIMAL_6_MESSAGE',
  'DECIMAL_PATTERN',
  'DISPLAY_TEXT_FORMAT',
  'DISPLAY_TEXT_MESSAGE',
  'DisplayText',
  'INTERFACE_VERSION',
  'JSON_DEPTH_MESSAGE',
  'JSON_POINTER_PATTERN',
  'MAX_ARTIFACT_CONTENT_BYTES',
  'MAX_CREDITS',
  'MAX_DECIMAL_PLACES',
  'MAX_FREE_OBJECT_PROPERTIES',
  'MAX_JSON_DEPTH',
  'MAX_MONEY_AMOUNT',
  'MAX_OFFSET',
  'MAX_PERCENT',
  'MAX_QUANTITY',
  'MAX_REMINDER_SENDS',
  'MAX_UPLOAD_BASE64_LENGTH',
  'MAX_VIOLATIONS',
  'MULTILINE_TEXT_FORMAT',
  'MULTILINE_TEXT_MESSAGE',
  'MoneyAmount',
  'MultilineText',
  'NullableDisplayText',
  'NullableMultilineText',
  'Percent',
  'Quantity',
  'SCHEMA_BASE_URI',
  'SCOPE_PATTERN',
  'Setting',
  'SettingError',
  'UUID_PATTERN',
  'addContractFormats',
  'agentOtpSubjectFragment',
  'buildCapabilityCatalog',
  'buildCapabilityDescription',
  'buildMcpManifest',
  'buildMcpTools',
  'buildOpenApiDocument',
  'buildOtpExtraction',
  'capabilityContracts',
  'catalogMetaTools',
  'compareText',
  'contractFormatMessage',
  'createAjv',
  'createValidator',
  'defaultErrorMessages',
  'defaultInstallationScopes',
  'defineCapability',
  'errorCodeTable',
  'errorCodes',
  'errorCodesForStatus',
  'errorEnvelope',
  'escapePointerToken',
  'extractOtpFromBody',
  'findCapabilityContract',
  'findMetaTool',
  'findOperation',
  'fnv1a32',
  'hasAtMostSixDecimals',
  'isDisplayText',
  'isErrorCode',
  'isMultilineText',
  'knownScopes',
  'metaTools',
  'operations',
  'pointerBeyondDepth',
  'readSettings',
  'rewriteSchemaRefs',
  'schemaId',
  'schemaNames',
  'schemas',
  'settingDefault',
  'settingExpectation',
  'settingsSchema',
  'toCatalogCapability',
  'toPlainJsonSchema',
  'toSearchResultItem',
  'toViolation',
];

describe('public API', () => {
  it('exports exactly the runtime names other packages code against', () => {
    // Pinned so a refactor cannot drop, rename or leak an export unnoticed.
    expect(Object.keys(contracts).sort()).toEqual(RUNTIME_EXPORTS);
    expect(contracts.INTERFACE_VERSION).toBe('1.0');
    expect(contracts.CATALOG_SCHEMA_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(contracts.SCHEMA_BASE_URI).toBe('https://agent-gateway.dev/schemas/v1');
    expect(contracts.createValidator).toBeTypeOf('function');
    expect(Array.isArray(contracts.capabilityContracts)).toBe(true);
    expect(Array.isArray(contracts.metaTools)).toBe(true);
    expect(Array.isArray(contracts.operations)).toBe(true);
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
