import { Type } from '@sinclair/typebox';
import { DisplayText } from '../schemas/display-text.js';
import { CapabilityId } from '../schemas/meta-tools.js';
import { CreditAmount } from '../schemas/numbers.js';
import { Closed, Decimal, Nullable, Timestamp, Uuid } from '../schemas/primitives.js';
import { BASE64_PATTERN, Input, OneOf, Output, Text } from './common.js';
import { defineCapability } from './types.js';

/**
 * The capabilities the spec names only through examples (core, documents, wallet). Their outputs are
 * "given by describe": the shapes below are ours.
 */

/** core.org.current.get: the caller's organization (the capability form of GET /org/current, without keys). */
export const coreOrgCurrentGet = defineCapability({
  id: 'core.org.current.get',
  version: '1.0.0',
  summary: "Read the calling installation's organization.",
  tags: ['core', 'organization', 'read'],
  risk_level: 'low',
  scopes: ['core:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({}),
  output_schema: Output({
    organization: Output({
      id: Uuid(),
      name: Type.String(),
      short_id: Type.String(),
      is_active: Type.Boolean(),
      created_at: Timestamp(),
      updated_at: Timestamp(),
    }),
  }),
});

/** Largest accepted upload, as base64 characters (10 MiB of content). */
export const MAX_UPLOAD_BASE64_LENGTH = 13_981_016;

/** documents.document.upload. */
export const documentsDocumentUpload = defineCapability({
  id: 'documents.document.upload',
  version: '1.0.0',
  summary: 'Upload a document (base64 content) into the organization’s document store.',
  tags: ['documents', 'upload', 'file'],
  risk_level: 'medium',
  scopes: ['documents:write'],
  cost_credits: '0.02',
  mutating: true,
  dry_run: 'supported',
  input_schema: Input({
    // No slash, backslash or control character (a name, not a path), and nothing that looks like one.
    file_name: DisplayText(1, 255, '^[^/\\\\\\u0000-\\u001f]+$'),
    mime_type: Type.String({
      maxLength: 255,
      pattern: '^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$',
    }),
    content_base64: Type.String({
      minLength: 1,
      maxLength: MAX_UPLOAD_BASE64_LENGTH,
      pattern: BASE64_PATTERN,
    }),
  }),
  output_schema: Output({
    document: Output({
      id: Uuid(),
      file_name: Type.String(),
      mime_type: Type.String(),
      size_bytes: Type.Integer({ minimum: 0 }),
      sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
      created_at: Timestamp(),
    }),
  }),
});

/** wallet.agent_budget.guard.check: may the agent spend this much? The answer is `result.allowed`. */
export const walletAgentBudgetGuardCheck = defineCapability({
  id: 'wallet.agent_budget.guard.check',
  version: '1.0.0',
  summary:
    'Check an estimated cost against the wallet balance and the budget caps; the decision is result.allowed.',
  tags: ['wallet', 'budget', 'guard', 'check'],
  risk_level: 'low',
  scopes: ['billing.wallet:read'],
  cost_credits: '0',
  mutating: false,
  dry_run: 'supported',
  input_schema: Input({
    capability_id: CapabilityId(),
    estimated_cost_credits: CreditAmount(),
    window: Type.Optional(OneOf(['task', 'hour', 'day', 'month'])),
  }),
  output_schema: Output({
    allowed: Type.Boolean(),
    organization_id: Uuid(),
    wallet_balance_credits: Decimal(),
    estimated_cost_credits: Type.Number({ minimum: 0 }),
    policy: Type.Object(
      {
        policy_profile_id: Nullable(Text(1, 128)),
        task_cap_credits: Nullable(Decimal()),
        daily_cap_credits: Nullable(Decimal()),
        monthly_cap_credits: Nullable(Decimal()),
        burn_rate_hourly_cap_credits: Nullable(Decimal()),
        kill_switch_enabled: Type.Boolean(),
      },
      Closed,
    ),
    ledger: Type.Object(
      {
        hour_cost_credits: Decimal(),
        today_cost_credits: Decimal(),
        month_cost_credits: Decimal(),
      },
      Closed,
    ),
    reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  }),
});

/** Core, documents and wallet capabilities. */
export const platformCapabilities = [
  coreOrgCurrentGet,
  documentsDocumentUpload,
  walletAgentBudgetGuardCheck,
] as const;
