import { type Static, Type } from '@sinclair/typebox';
import {
  API_KEY_PATTERN,
  APP_SLUG_PATTERN,
  Closed,
  Email,
  idOf,
  Nullable,
  Ref,
  Scopes,
  Timestamp,
  Uuid,
} from './primitives.js';

/** The app an agent registers (POST /register). */
export const App = Type.Object(
  {
    id: Uuid(),
    slug: Type.String({ minLength: 3, maxLength: 63, pattern: APP_SLUG_PATTERN }),
    name: Type.String({ minLength: 2, maxLength: 120 }),
    verification_status: Type.Union([Type.Literal('unverified'), Type.Literal('verified')]),
  },
  { ...idOf('App'), ...Closed },
);
export type App = Static<typeof App>;

/** An organization as returned by POST /organizations (id and name; the other fields appear on /org/current). */
export const Organization = Type.Object(
  {
    id: Uuid(),
    name: Type.String({ minLength: 1, maxLength: 160 }),
    short_id: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    is_active: Type.Optional(Type.Boolean()),
    created_at: Type.Optional(Timestamp()),
    updated_at: Type.Optional(Timestamp()),
  },
  { ...idOf('Organization'), ...Closed },
);
export type Organization = Static<typeof Organization>;

/** The organization as returned by GET /org/current: every field present. */
export const OrganizationDetails = Type.Object(
  {
    id: Uuid(),
    name: Type.String({ minLength: 1, maxLength: 160 }),
    short_id: Type.String({ minLength: 1, maxLength: 32 }),
    is_active: Type.Boolean(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { ...idOf('OrganizationDetails'), ...Closed },
);
export type OrganizationDetails = Static<typeof OrganizationDetails>;

/** The installation of an agent in an organization. */
export const Installation = Type.Object(
  {
    id: Uuid(),
    agent_email: Nullable(Email()),
    agent_email_verified_at: Nullable(Timestamp()),
    agent_email_verification_status: Type.Union([
      Type.Literal('not_required'),
      Type.Literal('pending'),
      Type.Literal('verified'),
    ]),
    owner_email: Email(),
    owner_user_id: Type.Optional(Uuid()),
    owner_verified_at: Nullable(Timestamp()),
    operator_approval_status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('approved'),
      Type.Literal('blocked'),
    ]),
    operator_approved_at: Type.Optional(Nullable(Timestamp())),
    scopes: Scopes(),
  },
  { ...idOf('Installation'), ...Closed },
);
export type Installation = Static<typeof Installation>;

const keyToken = () => Type.String({ pattern: API_KEY_PATTERN, maxLength: 256 });

/** The short-lived bootstrap key returned by /register (valid only up to /organizations). */
export const BootstrapKey = Type.Object(
  { token: keyToken(), expires_at: Timestamp(), scopes: Scopes() },
  { ...idOf('BootstrapKey'), ...Closed },
);
export type BootstrapKey = Static<typeof BootstrapKey>;

/** The installation key returned once by /organizations. */
export const InstallationKey = Type.Object(
  { token: keyToken(), expires_at: Timestamp(), scopes: Scopes() },
  { ...idOf('InstallationKey'), ...Closed },
);
export type InstallationKey = Static<typeof InstallationKey>;

/** The new key returned once by /keys/rotate. */
export const RotatedKey = Type.Object(
  {
    token: keyToken(),
    expires_at: Timestamp(),
    scopes: Scopes(),
    rotated_from_key_id: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { ...idOf('RotatedKey'), ...Closed },
);
export type RotatedKey = Static<typeof RotatedKey>;

/** The technical principal behind the key in use (GET /org/current). */
export const Principal = Type.Object(
  {
    sb_user_id: Type.String({ minLength: 1, maxLength: 128 }),
    installation_id: Uuid(),
    scopes: Scopes(),
  },
  { ...idOf('Principal'), ...Closed },
);
export type Principal = Static<typeof Principal>;

/** Delivery status of a one-time code; `suppressed` means stop and hand over to a human. */
export const OtpDeliveryStatus = Type.Union(
  [Type.Literal('queued'), Type.Literal('sent'), Type.Literal('suppressed')],
  idOf('OtpDeliveryStatus'),
);
export type OtpDeliveryStatus = Static<typeof OtpDeliveryStatus>;

/**
 * What the spec says `code_regex` is: a line pattern (anchored with `^` and `$`, since the code stands
 * on a line of its own) with a named group `otp`.
 */
const AGENT_OTP_CODE_REGEX_SHAPE = '^\\^.*\\(\\?<otp>.*\\$$';

/** How an agent finds its code in its mailbox. */
export const OtpExtraction = Type.Object(
  {
    mailbox: Type.Literal('agent_email'),
    imap_search: Type.Object(
      {
        header: Type.Literal('Subject'),
        contains: Type.String({ pattern: '^Ref: \\S+$', maxLength: 200 }),
      },
      Closed,
    ),
    subject_contains: Type.String({ minLength: 1, maxLength: 200 }),
    code_line_prefix: Type.Literal('Code: '),
    code_regex: Type.String({ minLength: 1, maxLength: 200, pattern: AGENT_OTP_CODE_REGEX_SHAPE }),
    verify_endpoint: Type.Literal('/agent-otp/verify'),
  },
  { ...idOf('OtpExtraction'), ...Closed },
);
export type OtpExtraction = Static<typeof OtpExtraction>;

/** Delivery of the owner's one-time code. */
export const OwnerOtpDelivery = Type.Object(
  { status: Ref(OtpDeliveryStatus), expires_at: Timestamp() },
  { ...idOf('OwnerOtpDelivery'), ...Closed },
);
export type OwnerOtpDelivery = Static<typeof OwnerOtpDelivery>;

/** Delivery of the agent mailbox's one-time code, with how to find it. */
export const AgentOtpDelivery = Type.Object(
  {
    status: Ref(OtpDeliveryStatus),
    expires_at: Timestamp(),
    correlation_id: Type.String({ minLength: 1, maxLength: 128, pattern: '^\\S+$' }),
    extraction: Ref(OtpExtraction),
  },
  { ...idOf('AgentOtpDelivery'), ...Closed },
);
export type AgentOtpDelivery = Static<typeof AgentOtpDelivery>;
