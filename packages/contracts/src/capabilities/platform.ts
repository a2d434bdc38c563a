import { Type } from '@sinclair/typebox';
import { DisplayText } from '../schemas/display-text.js';
import { CapabilityId } from '../schemas/meta-tools.js';
import { CreditAmount } from '../schemas/numbers.js';
import { Closed, Decimal, Described, Nullable, Sha256Hex, Timestamp, Uuid } from '../schemas/primitives.js';
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
    organization: Described(
      Output({
        id: Described(Uuid(), 'Id of the organization the key acts in.'),
        name: Described(Type.String(), 'Name of the organization.'),
        short_id: Described(Type.String(), 'Short human-readable id of the organization.'),
        is_active: Described(Type.Boolean(), 'False when an operator has deactivated the organization.'),
        created_at: Described(Timestamp(), 'When the organization was created.'),
        updated_at: Described(Timestamp(), 'When it last changed.'),
      }),
      "The calling installation's organization.",
    ),
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
    file_name: Described(
      DisplayText(1, 255, '^[^/\\\\\\u0000-\\u001f]+$'),
      'File name to store it under: a name, not a path (no slashes).',
      ['contract-2025.pdf'],
    ),
    mime_type: Described(
      Type.String({
        maxLength: 255,
        pattern: '^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$',
      }),
      'Media type of the content (RFC 6838), lower case.',
      ['application/pdf', 'image/png'],
    ),
    content_base64: Described(
      Type.String({
        minLength: 1,
        maxLength: MAX_UPLOAD_BASE64_LENGTH,
        pattern: BASE64_PATTERN,
      }),
      'The file content, standard base64 (RFC 4648) with padding; at most 10 MiB decoded.',
    ),
  }),
  output_schema: Output({
    document: Described(
      Output({
        id: Described(Uuid(), 'Id of the stored document.'),
        file_name: Described(Type.String(), 'The file name stored.'),
        mime_type: Described(Type.String(), 'The media type stored.'),
        size_bytes: Described(Type.Integer({ minimum: 0 }), 'Size of the decoded content in bytes.'),
        sha256: Described(
          Sha256Hex(),
          'SHA-256 of the decoded content: compare it with your own to confirm the upload.',
        ),
        created_at: Described(Timestamp(), 'When it was stored.'),
      }),
      'The stored document.',
    ),
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
    capability_id: Described(CapabilityId(), 'The capability the agent means to run.', [
      'billing.document.pdf',
    ]),
    estimated_cost_credits: Described(
      CreditAmount(),
      "What the run would cost in credits, e.g. the capability's cost_credits from describe.",
      [0.1],
    ),
    window: Type.Optional(
      Described(
        OneOf(['task', 'hour', 'day', 'month']),
        "For the caller's bookkeeping only: every cap is checked whatever the window.",
      ),
    ),
  }),
  output_schema: Output({
    allowed: Described(Type.Boolean(), 'True when a run costing the estimate would be allowed now.'),
    organization_id: Described(Uuid(), 'The organization whose wallet was checked.'),
    wallet_balance_credits: Described(Decimal(), 'Credits in the wallet now.'),
    estimated_cost_credits: Described(Type.Number({ minimum: 0 }), 'The estimate checked, in credits.'),
    policy: Type.Object(
      {
        policy_profile_id: Described(
          Nullable(Text(1, 128)),
          'The budget policy applied; null when the defaults apply.',
        ),
        task_cap_credits: Described(Nullable(Decimal()), 'Most credits one run may cost; null: no cap.'),
        daily_cap_credits: Described(
          Nullable(Decimal()),
          'Most credits per calendar day (UTC; resets at midnight UTC); null: no cap.',
        ),
        monthly_cap_credits: Described(
          Nullable(Decimal()),
          'Most credits per calendar month (UTC); null: no cap.',
        ),
        burn_rate_hourly_cap_credits: Described(
          Nullable(Decimal()),
          'Most credits in any rolling hour; null: no cap.',
        ),
        kill_switch_enabled: Described(Type.Boolean(), 'True: an operator has stopped all paid runs.'),
      },
      { ...Closed, description: "The organization's budget caps, set by an operator." },
    ),
    ledger: Type.Object(
      {
        hour_cost_credits: Described(Decimal(), 'Credits spent in the last hour.'),
        today_cost_credits: Described(Decimal(), 'Credits spent since midnight UTC.'),
        month_cost_credits: Described(Decimal(), 'Credits spent since the 1st of the month (UTC).'),
      },
      { ...Closed, description: 'What has been spent, against the caps.' },
    ),
    reason: Type.Optional(
      Described(
        Nullable(Type.String({ maxLength: 500 })),
        'Why it would be refused (kill switch, balance or which cap); null when allowed.',
      ),
    ),
  }),
});

/** Core, documents and wallet capabilities. */
export const platformCapabilities = [
  coreOrgCurrentGet,
  documentsDocumentUpload,
  walletAgentBudgetGuardCheck,
] as const;
