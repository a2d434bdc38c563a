import {
  AgentOtpResendRequest,
  AgentOtpResendResponse,
  AgentOtpVerifyRequest,
  AgentOtpVerifyResponse,
  KeysRotateRequest,
  KeysRotateResponse,
  OrganizationsRequest,
  OrganizationsResponse,
  OrgCurrentResponse,
  OwnerOtpClaimRequest,
  OwnerOtpClaimResponse,
  OwnerOtpResendRequest,
  OwnerOtpResendResponse,
  RegisterRequest,
  RegisterResponse,
} from './access.js';
import {
  CapabilityCatalog,
  CatalogCapability,
  CatalogMetaTool,
  HealthResponse,
  McpManifest,
  McpTools,
  MetaToolName,
  MetaToolSummary,
} from './discovery.js';
import { ErrorEnvelope, ViolationDetail } from './error-envelope.js';
import {
  CapabilityDescription,
  DescribeRequest,
  DryRunMode,
  DryRunRequest,
  DryRunResponse,
  InvokeRequest,
  InvokeResponse,
  RiskLevel,
  SearchCapabilitiesRequest,
  SearchCapabilitiesResponse,
  SearchResultItem,
} from './meta-tools.js';
import {
  AgentOtpDelivery,
  App,
  BootstrapKey,
  Installation,
  InstallationKey,
  Organization,
  OrganizationDetails,
  OtpDeliveryStatus,
  OtpExtraction,
  OwnerOtpDelivery,
  Principal,
  RotatedKey,
} from './resources.js';

/**
 * Every named wire schema of the interface, by name. Each carries `$id` `${SCHEMA_BASE_URI}/<name>`;
 * schemas that embed another refer to it by that `$id`, so validate through `createValidator()`, which
 * registers all of them.
 */
export const schemas = {
  // Resources
  App,
  Organization,
  OrganizationDetails,
  Installation,
  BootstrapKey,
  InstallationKey,
  RotatedKey,
  Principal,
  OtpDeliveryStatus,
  OtpExtraction,
  OwnerOtpDelivery,
  AgentOtpDelivery,
  // Access endpoints
  RegisterRequest,
  RegisterResponse,
  OrganizationsRequest,
  OrganizationsResponse,
  OwnerOtpClaimRequest,
  OwnerOtpClaimResponse,
  OwnerOtpResendRequest,
  OwnerOtpResendResponse,
  AgentOtpVerifyRequest,
  AgentOtpVerifyResponse,
  AgentOtpResendRequest,
  AgentOtpResendResponse,
  KeysRotateRequest,
  KeysRotateResponse,
  OrgCurrentResponse,
  // Meta-tools
  RiskLevel,
  DryRunMode,
  SearchCapabilitiesRequest,
  SearchCapabilitiesResponse,
  SearchResultItem,
  DescribeRequest,
  CapabilityDescription,
  DryRunRequest,
  DryRunResponse,
  InvokeRequest,
  InvokeResponse,
  // Discovery
  HealthResponse,
  MetaToolName,
  MetaToolSummary,
  CatalogMetaTool,
  CatalogCapability,
  CapabilityCatalog,
  McpManifest,
  McpTools,
  // Errors
  ErrorEnvelope,
  ViolationDetail,
} as const;

/** Name of a schema in `schemas`. */
export type SchemaName = keyof typeof schemas;

/** All schema names, in declaration order. */
export const schemaNames = Object.keys(schemas) as SchemaName[];

export * from './access.js';
export * from './discovery.js';
export * from './error-envelope.js';
export * from './meta-tools.js';
export * from './primitives.js';
export * from './resources.js';
