import { type ErrorCode, errorCodes } from './errors.js';
import { rewriteSchemaRefs } from './json-schema.js';
import { type OperationDefinition, operations } from './operations.js';
import { schemaNames, schemas } from './schemas/index.js';
import { INTERFACE_VERSION } from './version.js';

/** Options of `buildOpenApiDocument`. */
export interface BuildOpenApiOptions {
  /** Public base address; omitted means the document has a relative server `/`. */
  serverUrl?: string;
  title?: string;
  /** `info.version`; defaults to the interface version. */
  version?: string;
}

const componentRef = (name: string) => `#/components/schemas/${name}`;

const statusText: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

/** Error codes answered with `status`. */
export function errorCodesForStatus(status: number): ErrorCode[] {
  return (Object.keys(errorCodes) as ErrorCode[]).filter((code) => errorCodes[code].status === status);
}

function errorResponse(status: number): Record<string, unknown> {
  const codes = errorCodesForStatus(status);
  const response: Record<string, unknown> = {
    description: `${statusText[status] ?? 'Error'}. error.code is one of: ${codes.join(', ')}.`,
    content: { 'application/json': { schema: { $ref: componentRef('ErrorEnvelope') } } },
  };
  if (status === 429 || status === 503 || status === 409) {
    response.headers = {
      'Retry-After': {
        description: 'Seconds to wait; equals error.retry_after_seconds when present.',
        schema: { type: 'integer', minimum: 0 },
      },
    };
  }
  if (status === 405) {
    response.headers = { Allow: { description: 'Methods of this path.', schema: { type: 'string' } } };
  }
  return response;
}

function successResponse(op: OperationDefinition): Record<string, unknown> {
  const description = op.successStatus === 201 ? 'Created' : 'OK';
  if (op.response === 'text')
    return { description, content: { 'text/plain': { schema: { type: 'string' } } } };
  if (op.response === 'openapi') {
    return { description, content: { 'application/json': { schema: { type: 'object' } } } };
  }
  return { description, content: { 'application/json': { schema: { $ref: componentRef(op.response) } } } };
}

function security(op: OperationDefinition): Array<Record<string, string[]>> {
  if (op.auth === 'none') return [];
  if (op.auth === 'optional_installation_key') return [{}, { bearer: [] }];
  return [{ bearer: [] }];
}

function operationObject(op: OperationDefinition): Record<string, unknown> {
  const responses: Record<string, unknown> = { [String(op.successStatus)]: successResponse(op) };
  for (const status of op.errorStatuses) responses[String(status)] = errorResponse(status);
  const object: Record<string, unknown> = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    security: security(op),
    responses,
  };
  if (op.auth === 'bootstrap_key')
    object.description = 'Authenticate with the bootstrap key returned by /register.';
  const pathParameters = [...op.path.matchAll(/\{([a-z_]+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));
  if (pathParameters.length > 0) object.parameters = pathParameters;
  if (op.idempotencyHeader) {
    object.parameters = [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description: 'Unique per mutation; a retry with the same key and body replays the first response.',
        schema: { type: 'string', minLength: 16, maxLength: 128 },
      },
    ];
  }
  if (op.request !== undefined) {
    object.requestBody = {
      required: true,
      content: { 'application/json': { schema: { $ref: componentRef(op.request) } } },
    };
  }
  return object;
}

/** The error table as published in the document (`x-error-codes` of the ErrorEnvelope component). */
export function errorCodeTable(): Array<{
  code: ErrorCode;
  status: number;
  retryable: boolean;
  hint: string;
}> {
  return (Object.keys(errorCodes) as ErrorCode[]).map((code) => ({ code, ...errorCodes[code] }));
}

/** Builds the OpenAPI 3.1.0 document of the whole interface from `operations` and `schemas`. */
export function buildOpenApiDocument(options: BuildOpenApiOptions = {}): Record<string, unknown> {
  const componentSchemas: Record<string, unknown> = {};
  for (const name of schemaNames) componentSchemas[name] = rewriteSchemaRefs(schemas[name], componentRef);
  const envelope = componentSchemas.ErrorEnvelope as Record<string, unknown>;
  envelope['x-error-codes'] = errorCodeTable();
  envelope.description = `Body of every error. Codes: ${errorCodeTable()
    .map((row) => `${row.code} (${row.status}${row.retryable ? ', retryable' : ''})`)
    .join(', ')}.`;

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    (paths[op.path] as Record<string, unknown>)[op.method.toLowerCase()] = operationObject(op);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Agent Gateway',
      version: options.version ?? INTERFACE_VERSION,
      description:
        'HTTP gateway through which agents onboard into an organization and run versioned capabilities ' +
        `through four meta-tools. interface_version ${INTERFACE_VERSION}.`,
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [
      { name: 'discovery', description: 'Public discovery endpoints (no authentication).' },
      { name: 'access', description: 'Onboarding: register, organization, OTPs, keys.' },
      { name: 'meta-tools', description: 'search_capabilities, describe, dry_run, invoke.' },
    ],
    paths,
    components: {
      schemas: componentSchemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'agw_ak_<prefix>.<secret>',
          description: 'Bootstrap key (only for /organizations) or installation key.',
        },
      },
    },
  };
}
