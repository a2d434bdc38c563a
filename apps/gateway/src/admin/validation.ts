import { createAjv, toViolation } from '@agw/contracts';
import { GatewayError } from '../http/gateway-error.js';

// Request schemas of the admin API. They are operator-only and appear in no public contract, so they
// live here rather than in @agw/contracts; validated with the contracts' Ajv (2020-12, strict, formats).

const email = { type: 'string', format: 'email', minLength: 3, maxLength: 254 } as const;

/** Body of POST /admin/operator-keys. */
export interface CreateOperatorKeyBody {
  label?: string;
}

/** Body of PUT-like POST /admin/access. */
export interface SetAccessModeBody {
  mode: 'open' | 'invite_only';
}

/** Body of POST /admin/access/invites. */
export interface InviteBody {
  email: string;
}

/** Body of POST /admin/mail-suppressions. */
export interface SuppressBody {
  email: string;
  reason?: string;
}

/** Body of POST /admin/mail-suppressions/remove. */
export interface UnsuppressBody {
  email: string;
}

/** Query of GET /admin/installations. */
export interface InstallationListQuery {
  status?: 'pending' | 'approved' | 'blocked';
  limit?: string;
}

const schemas = {
  createOperatorKey: {
    type: 'object',
    additionalProperties: false,
    properties: { label: { type: 'string', minLength: 1, maxLength: 100 } },
  },
  setAccessMode: {
    type: 'object',
    additionalProperties: false,
    required: ['mode'],
    properties: { mode: { enum: ['open', 'invite_only'] } },
  },
  invite: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: { email },
  },
  suppress: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: { email, reason: { type: 'string', minLength: 1, maxLength: 200 } },
  },
  unsuppress: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: { email },
  },
  installationListQuery: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: { enum: ['pending', 'approved', 'blocked'] },
      limit: { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|1000)$' },
    },
  },
} as const;

interface AdminSchemaTypes {
  createOperatorKey: CreateOperatorKeyBody;
  setAccessMode: SetAccessModeBody;
  invite: InviteBody;
  suppress: SuppressBody;
  unsuppress: UnsuppressBody;
  installationListQuery: InstallationListQuery;
}

/** The name of an admin request schema. */
export type AdminSchemaName = keyof AdminSchemaTypes;

const ajv = createAjv();

/**
 * Compiles an admin request schema once. The returned function returns `value` typed when it matches,
 * otherwise throws 400 `validation_failed` with one detail per violation (RFC 6901 pointers) and the
 * first pointer as `schema_pointer`.
 */
export function adminValidator<T>(schema: object): (value: unknown) => T {
  const validate = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return value as T;
    const violations = (validate.errors ?? []).slice(0, 20).map(toViolation);
    const first = violations[0];
    throw new GatewayError('validation_failed', {
      message: first
        ? `The request does not match the schema at "${first.schema_pointer}": ${first.message}.`
        : 'The request does not match the schema.',
      details: violations.map((violation) => ({ ...violation })),
      ...(first ? { schemaPointer: first.schema_pointer } : {}),
    });
  };
}

const validators = Object.fromEntries(
  Object.entries(schemas).map(([name, schema]) => [name, adminValidator(schema)]),
) as { [N in AdminSchemaName]: (value: unknown) => AdminSchemaTypes[N] };

/** {@link adminValidator} of the named schema. */
export function validateAdminInput<N extends AdminSchemaName>(name: N, value: unknown): AdminSchemaTypes[N] {
  return validators[name](value);
}

/** An email address as stored and compared by the admin API: trimmed and lower-cased. */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}
