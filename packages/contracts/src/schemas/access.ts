import { type Static, Type } from '@sinclair/typebox';
import { DisplayText } from './display-text.js';
import { APP_SLUG_PATTERN, Closed, Email, idOf, Nullable, Ref } from './primitives.js';
import {
  AgentOtpDelivery,
  App,
  BootstrapKey,
  Installation,
  InstallationKey,
  Organization,
  OrganizationDetails,
  OwnerOtpDelivery,
  Principal,
  RotatedKey,
} from './resources.js';

/** `agent_email` in requests: optional; null is read as "not set". */
const OptionalAgentEmail = () => Type.Optional(Nullable(Email()));
/** Body of the POSTs that take an empty object. */
const EmptyBody = (name: string) => Type.Object({}, { ...idOf(name), ...Closed });
/** Body of the code redemptions (owner claim, agent verify): the one-time code exactly as delivered. */
const OtpBody = (name: string) =>
  Type.Object({ otp: Type.String({ minLength: 1, maxLength: 64 }) }, { ...idOf(name), ...Closed });
/** Answer of the code redemptions: the installation with its updated verification state. */
const InstallationBody = (name: string) =>
  Type.Object({ installation: Ref(Installation) }, { ...idOf(name), ...Closed });

/** POST /register body. */
export const RegisterRequest = Type.Object(
  {
    owner_email: Email(),
    agent_email: OptionalAgentEmail(),
    app: Type.Object(
      {
        slug: Type.String({ minLength: 3, maxLength: 63, pattern: APP_SLUG_PATTERN }),
        name: DisplayText(2, 120),
        description: Type.Optional(Type.String({ maxLength: 2000 })),
        contact_email: Type.Optional(Email()),
        homepage_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
      },
      Closed,
    ),
  },
  { ...idOf('RegisterRequest'), ...Closed },
);
export type RegisterRequest = Static<typeof RegisterRequest>;

/**
 * POST /register 201 body. A replay (same Idempotency-Key and body) answers the same registration with
 * `bootstrap_key: null`, `replayed: true` and a `hint`: /register has no principal to tie the one-time
 * key to, so it is shown only to the first answer (docs/decisions.md, "Onboarding and keys").
 */
export const RegisterResponse = Type.Object(
  {
    app: Ref(App),
    agent_email: Nullable(Email()),
    bootstrap_key: Nullable(Ref(BootstrapKey)),
    replayed: Type.Optional(Type.Literal(true)),
    hint: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { ...idOf('RegisterResponse'), ...Closed },
);
export type RegisterResponse = Static<typeof RegisterResponse>;

/** POST /organizations body (bootstrap key). */
export const OrganizationsRequest = Type.Object(
  {
    owner_email: Email(),
    agent_email: OptionalAgentEmail(),
    organization: Type.Object({ name: DisplayText(3, 160) }, Closed),
  },
  { ...idOf('OrganizationsRequest'), ...Closed },
);
export type OrganizationsRequest = Static<typeof OrganizationsRequest>;

/** POST /organizations 201 body; `agent_otp_delivery` is null when no agent_email is set. */
export const OrganizationsResponse = Type.Object(
  {
    organization: Ref(Organization),
    installation: Ref(Installation),
    installation_key: Ref(InstallationKey),
    owner_otp_delivery: Ref(OwnerOtpDelivery),
    agent_otp_delivery: Nullable(Ref(AgentOtpDelivery)),
  },
  { ...idOf('OrganizationsResponse'), ...Closed },
);
export type OrganizationsResponse = Static<typeof OrganizationsResponse>;

/** POST /owner-otp/claim body. */
export const OwnerOtpClaimRequest = OtpBody('OwnerOtpClaimRequest');
export type OwnerOtpClaimRequest = Static<typeof OwnerOtpClaimRequest>;

/** POST /owner-otp/claim 200 body. */
export const OwnerOtpClaimResponse = InstallationBody('OwnerOtpClaimResponse');
export type OwnerOtpClaimResponse = Static<typeof OwnerOtpClaimResponse>;

/** POST /owner-otp/resend body: an empty object. */
export const OwnerOtpResendRequest = EmptyBody('OwnerOtpResendRequest');
export type OwnerOtpResendRequest = Static<typeof OwnerOtpResendRequest>;

/** POST /owner-otp/resend 200 body. */
export const OwnerOtpResendResponse = Type.Object(
  { installation: Ref(Installation), owner_otp_delivery: Ref(OwnerOtpDelivery) },
  { ...idOf('OwnerOtpResendResponse'), ...Closed },
);
export type OwnerOtpResendResponse = Static<typeof OwnerOtpResendResponse>;

/** POST /agent-otp/verify body. */
export const AgentOtpVerifyRequest = OtpBody('AgentOtpVerifyRequest');
export type AgentOtpVerifyRequest = Static<typeof AgentOtpVerifyRequest>;

/** POST /agent-otp/verify 200 body. */
export const AgentOtpVerifyResponse = InstallationBody('AgentOtpVerifyResponse');
export type AgentOtpVerifyResponse = Static<typeof AgentOtpVerifyResponse>;

/** POST /agent-otp/resend body: an empty object. */
export const AgentOtpResendRequest = EmptyBody('AgentOtpResendRequest');
export type AgentOtpResendRequest = Static<typeof AgentOtpResendRequest>;

/** POST /agent-otp/resend 200 body. */
export const AgentOtpResendResponse = Type.Object(
  { installation: Ref(Installation), agent_otp_delivery: Ref(AgentOtpDelivery) },
  { ...idOf('AgentOtpResendResponse'), ...Closed },
);
export type AgentOtpResendResponse = Static<typeof AgentOtpResendResponse>;

/** POST /keys/rotate body: an empty object. */
export const KeysRotateRequest = EmptyBody('KeysRotateRequest');
export type KeysRotateRequest = Static<typeof KeysRotateRequest>;

/** POST /keys/rotate 201 body. */
export const KeysRotateResponse = Type.Object(
  { key: Ref(RotatedKey) },
  { ...idOf('KeysRotateResponse'), ...Closed },
);
export type KeysRotateResponse = Static<typeof KeysRotateResponse>;

/** GET /org/current 200 body. */
export const OrgCurrentResponse = Type.Object(
  { organization: Ref(OrganizationDetails), installation: Ref(Installation), principal: Ref(Principal) },
  { ...idOf('OrgCurrentResponse'), ...Closed },
);
export type OrgCurrentResponse = Static<typeof OrgCurrentResponse>;
