/**
 * @agw/contracts — the wire contract of the Agent Gateway interface: JSON Schemas (TypeBox, 2020-12)
 * and their TypeScript types, capability contracts, the error table, the validator factory, and the
 * builders of the catalog, the MCP manifest/tools and the OpenAPI 3.1 document. No I/O, browser-safe.
 */

export { ARTIFACT_CONTENT_FORMATS, MAX_ARTIFACT_CONTENT_BYTES } from './capabilities/assist.js';
export { MAX_REMINDER_SENDS } from './capabilities/billing-reminders.js';
export type {
  CapabilityContract,
  CapabilityId,
  CapabilityIO,
  CapabilityRiskLevel,
  TypedCapabilityContract,
} from './capabilities/index.js';
export { capabilityContracts, defineCapability, findCapabilityContract } from './capabilities/index.js';
export { MAX_UPLOAD_BASE64_LENGTH } from './capabilities/platform.js';
export type { BuildCapabilityCatalogOptions, CatalogSource } from './catalog.js';
export {
  buildCapabilityCatalog,
  catalogMetaTools,
  compareText,
  fnv1a32,
  toCatalogCapability,
} from './catalog.js';
export type { BuildCapabilityDescriptionOptions, CapabilityAccess } from './describe.js';
export { buildCapabilityDescription, toSearchResultItem } from './describe.js';
export type { ErrorEnvelopeInit } from './error-envelope.js';
export { defaultErrorMessages, errorEnvelope } from './error-envelope.js';
export type { ErrorCode, ErrorCodeInfo } from './errors.js';
export { errorCodes, isErrorCode } from './errors.js';
export { rewriteSchemaRefs, toPlainJsonSchema } from './json-schema.js';
export type { BuildMcpManifestOptions } from './mcp.js';
export { buildMcpManifest, buildMcpTools } from './mcp.js';
export type { MetaToolDefinition } from './meta-tool-definitions.js';
export { findMetaTool, metaTools } from './meta-tool-definitions.js';
export type { BuildOpenApiOptions } from './openapi.js';
export { buildOpenApiDocument, errorCodesForStatus, errorCodeTable } from './openapi.js';
export type { OperationAuth, OperationDefinition } from './operations.js';
export { findOperation, operations } from './operations.js';
export {
  AGENT_OTP_CODE_REGEX,
  agentOtpSubjectFragment,
  buildOtpExtraction,
  extractOtpFromBody,
} from './otp.js';
export {
  DISPLAY_TEXT_FORMAT,
  DISPLAY_TEXT_MESSAGE,
  DisplayText,
  isDisplayText,
  isMultilineText,
  MULTILINE_TEXT_FORMAT,
  MULTILINE_TEXT_MESSAGE,
  MultilineText,
  NullableDisplayText,
  NullableMultilineText,
} from './schemas/display-text.js';
export type { FormatRegistry } from './schemas/formats.js';
export { addContractFormats, contractFormatMessage } from './schemas/formats.js';
export type {
  AgentOtpDelivery,
  AgentOtpResendRequest,
  AgentOtpResendResponse,
  AgentOtpVerifyRequest,
  AgentOtpVerifyResponse,
  App,
  BootstrapKey,
  CapabilityCatalog,
  CapabilityDescription,
  CatalogCapability,
  CatalogMetaTool,
  DescribeRequest,
  DryRunMode,
  DryRunRequest,
  DryRunResponse,
  ErrorEnvelope,
  HealthResponse,
  Installation,
  InstallationKey,
  InvokeRequest,
  InvokeResponse,
  KeysRotateRequest,
  KeysRotateResponse,
  McpManifest,
  McpTools,
  MetaToolName,
  MetaToolSummary,
  Organization,
  OrganizationDetails,
  OrganizationsRequest,
  OrganizationsResponse,
  OrgCurrentResponse,
  OtpDeliveryStatus,
  OtpExtraction,
  OwnerOtpClaimRequest,
  OwnerOtpClaimResponse,
  OwnerOtpDelivery,
  OwnerOtpResendRequest,
  OwnerOtpResendResponse,
  Principal,
  RegisterRequest,
  RegisterResponse,
  RiskLevel,
  RotatedKey,
  SchemaName,
  SearchCapabilitiesRequest,
  SearchCapabilitiesResponse,
  SearchResultItem,
  ViolationDetail,
} from './schemas/index.js';
export {
  API_KEY_PATTERN,
  APP_SLUG_PATTERN,
  CALENDAR_SLUG_PATTERN,
  CAPABILITY_ID_PATTERN,
  CAPABILITY_VERSION_PATTERN,
  DECIMAL_PATTERN,
  JSON_POINTER_PATTERN,
  SCOPE_PATTERN,
  schemaNames,
  schemas,
  UUID_PATTERN,
} from './schemas/index.js';
export {
  JSON_DEPTH_MESSAGE,
  MAX_FREE_OBJECT_PROPERTIES,
  MAX_JSON_DEPTH,
  pointerBeyondDepth,
} from './schemas/json-depth.js';
export {
  CreditAmount,
  DECIMAL_6_FORMAT,
  DECIMAL_6_MESSAGE,
  hasAtMostSixDecimals,
  MAX_CREDITS,
  MAX_DECIMAL_PLACES,
  MAX_MONEY_AMOUNT,
  MAX_OFFSET,
  MAX_PERCENT,
  MAX_QUANTITY,
  MoneyAmount,
  Percent,
  Quantity,
} from './schemas/numbers.js';
export type { KnownScope } from './scopes.js';
export { defaultInstallationScopes, knownScopes } from './scopes.js';
export type {
  IntegerSetting,
  SettingAnnotations,
  SettingDisplay,
  SettingsSchema,
  StringSetting,
} from './settings.js';
export {
  readSettings,
  Setting,
  SettingError,
  settingDefault,
  settingExpectation,
  settingsSchema,
} from './settings.js';
export type { SchemaType, ValidationResult, Validator, Violation } from './validator.js';
export {
  ContractValidationError,
  createAjv,
  createValidator,
  escapePointerToken,
  MAX_VIOLATIONS,
  toViolation,
} from './validator.js';
export { CATALOG_SCHEMA_VERSION, INTERFACE_VERSION, SCHEMA_BASE_URI, schemaId } from './version.js';
