import { walkThroughs } from './llms-txt-walkthroughs.js';

/**
 * Renders GET /llms.txt (llmstxt.org form): the plain-text entry point that walks an agent through
 * onboarding, the four meta-tools, the paid sequence, a worked walk-through per domain and the rules for
 * stopping. The walk-throughs are `http` blocks a test runs in order as written
 * (test/llms-txt-walkthrough.test.ts): keep to the convention the text states under "How to read the
 * examples". Built once at start.
 *
 * @example
 * const text = renderLlmsTxt('https://gateway.example.com');
 */
export function renderLlmsTxt(baseUrl: string): string {
  const b = baseUrl;
  return `# Agent Gateway

> An HTTP gateway through which a software agent registers, is onboarded into an organization and then
> discovers and runs versioned business capabilities (billing, calendar, analytics, assistant artifacts,
> documents, wallet) through four meta-tools. Interface version 1.0. Base URL: ${b}

All bodies are JSON (send \`Content-Type: application/json\`). Every response carries \`X-Request-Id\`.
Access to the gateway is in beta and is enabled by the operator.

## How to read the examples

The walk-throughs below are fenced \`http\` blocks: one request as it goes over the wire — the request
line (method and absolute URL), the headers, a blank line, the body. The line after a block starts with
\`→\` and gives the status the gateway answers, then the values later steps use, each as
\`$NAME = path\` (a dotted path into the JSON answer; \`.0\` is an array's first item). Wherever a later
block says \`$NAME\`, write that value. \`$KEY\` is your installation key (onboarding below). A
line starting with ⏸ is a step a person (the operator) takes, not you: wait for it. The idempotency keys are
fixed strings so that a retry resends the same one; use your own unique ones. The gateway's tests run
every walk-through as written, in order, against a fresh gateway.

## Discovery (no authentication)

- GET ${b}/health - service status and the state of database, redis and mail
- GET ${b}/llms.txt - this document
- GET ${b}/capabilities - the capability catalog (meta-tools and public capabilities)
- GET ${b}/mcp/manifest - MCP manifest: meta-tools, resources, transport endpoints
- GET ${b}/mcp/tools - compact meta-tool definitions
- POST ${b}/mcp - the same four meta-tools as an MCP server (Streamable HTTP, stateless; send your
  installation key as \`Authorization: Bearer <key>\`)
- GET ${b}/openapi.json - OpenAPI 3.1 document of the whole interface, the public routes below included

Public routes (no key; for people and pages, not for agents' own calls):

- GET ${b}/book/{slug} - a public booking link's page, for a person to pick a time (HTML);
  GET ${b}/book/{slug}/{secret} - a secret link's page
- GET ${b}/book/{slug}/slots?tz=Europe/Berlin - the link's free times as JSON (secret links: add /{secret})
- POST ${b}/book/{slug}/bookings - book one of them (JSON: start, name, email)
- GET ${b}/a/script.js - the analytics tracker a page includes
- POST ${b}/a/events - analytics events from a page or a server, with a property's public ingestion id

## Onboarding, step by step

Keys look like \`agw_ak_<prefix>.<secret>\` and are sent as \`Authorization: Bearer <key>\`. A key is
shown exactly once. Never log keys or one-time codes. Every mutation needs an \`Idempotency-Key\` header
(16 to 128 characters, e.g. a fresh UUID v4); resend the same key when you retry the same request. The
examples make one with node, which runs in any POSIX shell: \`$(node -e 'console.log(crypto.randomUUID())')\`.

1. Register your app (no credentials). Answers 201 with a short-lived bootstrap key (scope
   \`platform:bootstrap\`, usable only for step 2).

   curl -sS -X POST ${b}/register \\
     -H 'Content-Type: application/json' \\
     -H "Idempotency-Key: $(node -e 'console.log(crypto.randomUUID())')" \\
     -d '{"owner_email":"owner@example.com","agent_email":"agent@example.com",
          "app":{"slug":"invoice-helper","name":"Invoice Helper","contact_email":"dev@example.com"}}'

2. Bootstrap the organization with the bootstrap key. owner_email (and agent_email, if you registered
   one) must repeat the registered values. Answers 201 with organization, installation,
   installation_key (store it now: it is returned only here and cannot be recovered),
   owner_otp_delivery and agent_otp_delivery.

   curl -sS -X POST ${b}/organizations \\
     -H 'Authorization: Bearer <bootstrap_key.token>' \\
     -H 'Content-Type: application/json' \\
     -H "Idempotency-Key: $(node -e 'console.log(crypto.randomUUID())')" \\
     -d '{"owner_email":"owner@example.com","agent_email":"agent@example.com",
          "organization":{"name":"Example Ltd"}}'

3. Owner code: the owner (a human) receives a one-time code by email and gives it to you. Submit it
   exactly as delivered (the line \`Code: <OTP>\` of the mail). On the embedded default (no SMTP_URL
   set) no mail leaves the machine: every message lands as a file in the gateway's data folder,
   \`.data/mail/*.eml\` (DATA_DIR/mail), listed by \`npm run agw -- mail list\` and printed by
   \`npm run agw -- mail show <id>\` in the gateway's checkout; the codes are read there.

   curl -sS -X POST ${b}/owner-otp/claim \\
     -H 'Authorization: Bearer <installation_key.token>' \\
     -H 'Content-Type: application/json' \\
     -H "Idempotency-Key: $(node -e 'console.log(crypto.randomUUID())')" \\
     -d '{"otp":"<code from the owner>"}'

4. Agent mailbox code (only when you set agent_email): search your mailbox for a message whose subject
   contains \`Ref: <correlation_id>\` (correlation_id is in agent_otp_delivery), take the standalone body
   line \`Code: <OTP>\` (regex \`^Code: (?<otp>\\S+)$\`, multiline) and submit the code:

   curl -sS -X POST ${b}/agent-otp/verify \\
     -H 'Authorization: Bearer <installation_key.token>' \\
     -H 'Content-Type: application/json' \\
     -H "Idempotency-Key: $(node -e 'console.log(crypto.randomUUID())')" \\
     -d '{"otp":"<code from the mail>"}'

   The owner code and the agent code may be redeemed in any order. A lost code is replaced with
   POST /owner-otp/resend or POST /agent-otp/resend and body {} (one fresh code per request).

5. Wait for operator approval by polling GET /org/current (no Idempotency-Key):

   curl -sS ${b}/org/current -H 'Authorization: Bearer <installation_key.token>'

   Polling rule: first poll 30 seconds after the last onboarding step, then at most one poll per
   60 seconds, and give up after 15 minutes. Before the owner code (and the agent code, when you set
   agent_email) is redeemed, /org/current answers 412 \`precondition_failed\`: redeem what is missing.
   Once the codes are redeemed it answers 200, and installation.operator_approval_status is \`pending\`
   until the operator decides; meanwhile dry_run and invoke answer 412 \`precondition_failed\`. That is
   expected: wait, never retry in a tight loop. You are done when operator_approval_status is
   \`approved\`. (The operator approves with \`npm run agw -- installations approve <installation_id>\`.)

6. Capabilities with a cost are paid from the organization's wallet, which starts empty: the operator
   credits it (\`npm run agw -- wallet credit <organization_id> 10\`). Until then a paid invoke is refused
   and the budget check below answers allowed false.

## When to stop and hand over to a human

- installation.operator_approval_status is \`blocked\`: stop immediately.
- Still \`pending\` after 15 minutes of polling: stop and hand over to a human.
- owner_otp_delivery.status is \`suppressed\`: stop and clarify with a human; repeated resends are not a
  recovery.
- organization.is_active is false (or error \`organization_inactive\`): stop and hand over to the operator.
- You lost the plaintext installation key: it cannot be recovered, and a second organization is not a
  replacement; ask the operator.
- Rotate keys before they expire with POST /keys/rotate (body {}); the new key is shown once.

## The four meta-tools

All are POST with a JSON body and \`Authorization: Bearer <installation key>\`. search_capabilities and
describe also answer anonymous calls.

- POST ${b}/mcp/search_capabilities - find capabilities.
  {"query":"invoice","domain":"billing","risk_level_max":"medium","limit":10}
  Answers results[] (id, version, summary, domain, risk_level, access), total, next_cursor; pass
  next_cursor as "cursor" for the next page. access \`scope_missing\`: read describe for the scopes.
- POST ${b}/mcp/describe - the full runtime contract of one capability: input_schema, output_schema
  (authoritative for params and result), scopes, risk level, cost, and dry_run (\`supported\` or \`required\`).
  {"id":"billing.document.create_draft"}
- POST ${b}/mcp/dry_run - validate and simulate without any state change or external effect. Beyond the
  schema it runs the capability's own business rules (an amount over an invoice's open balance, a
  document in the wrong state) and the budget check, so a call that would fail is known before an
  operator is asked to approve it; a draft's totals come back as a preview in effects.
  {"id":"billing.document.create_draft","params":{"document_type":"invoice","document_date":"2026-01-31",
   "lines":[{"item_name":"Consulting","quantity":2,"unit_price":150}]}}
  Answers valid, violations, would_require_approval, estimated_cost.amount_max, effects.
- POST ${b}/mcp/invoke - run one capability through the guard chain. Mutating capabilities need
  "idempotency_key" (16 to 128 characters, unique per mutation; reuse it only to retry the same call).
  {"id":"billing.document.create_draft","params":{"document_type":"invoice","document_date":"2026-01-31",
   "lines":[{"item_name":"Consulting","quantity":2,"unit_price":150}]},
   "idempotency_key":"0b9f5c1e-8a4e-4f7b-9c2d-3f1a2b3c4d5e"}
  Answers status \`succeeded\` (result), \`pending_approval\` (approval; invoke again with its
  approval_token once approved) or \`accepted\` (poll); replayed is true when an earlier answer for the same
  idempotency key is returned. The reads of a \`*.manage\` capability (\`"operation":"list"\`, or \`get\`)
  need no idempotency_key: describe lists them as read_operations, the others as mutating_operations.

## The paid sequence

For a capability with a cost: (1) describe it; (2) dry_run it and read estimated_cost.amount_max;
(3) invoke \`wallet.agent_budget.guard.check\`:
  {"id":"wallet.agent_budget.guard.check","params":{"capability_id":"billing.document.create_draft",
   "estimated_cost_credits":5,"window":"task"}}
and proceed only when status is \`succeeded\` and result.allowed is true (the decision is under result,
not at the top level); (4) invoke the capability with an idempotency key.

A price quote (beyond the spec): a valid dry_run's estimated_cost also carries \`quote\` (an opaque
\`agw_q_...\` string) and \`quote_expires_at\` (15 minutes by default). Send it with the invoke of the same
capability and the same params, as the HTTP header \`Agw-Quote: <quote>\` (over MCP: the tools/call's
params._meta["agw/quote"]); the run is then charged at most amount_max. Changed params, an expired quote,
another installation's or an altered one are refused with 409 \`quote_invalid\` before anything runs:
dry_run again for a fresh quote. A budget cap that resets (daily, monthly, hourly burn rate) is refused
with retryable true and retry_after_seconds until it lifts, by invoke and already by dry_run (a
\`budget\` violation). An archived PDF, Factur-X or XRechnung is charged once: re-reads cost nothing.

${walkThroughs(b)}
## Errors

Every error is one JSON envelope, nothing else at the top level:

  {"error":{"code":"precondition_failed","message":"...","retryable":false,
            "audit_id":"<uuid>","hint":"..."}}

code is the machine-readable reason; retryable says whether the same request may succeed later (then
wait retry_after_seconds, which equals the Retry-After header); schema_pointer and details[] point at
the offending part of your body; quote audit_id when you ask a human for help. 412
\`precondition_failed\` means onboarding is not complete: wait, do not loop. 429 \`rate_limited\` and 503
\`dependency_unavailable\` are retryable with the same idempotency key.
`;
}
