import { GatewayError } from '@agw/client';
import {
  type AgentContext,
  type AgentFlags,
  agentClient,
  requireKey,
  resolveAgentConnection,
} from '../agent-context.js';
import { EXIT, ExitError } from '../io.js';
import { withGateway } from '../operator-context.js';
import { colorsFor, formatTime, renderFields, writeJson } from '../output.js';
import { profileFlag } from './register.js';

const MISSING_STEPS: Record<string, string> = {
  owner_otp: 'the owner has not claimed the owner code (sent to the owner email)',
  agent_otp: 'the agent mailbox is not verified (the agent code sent to the agent email)',
  operator_approval: 'the operator has not approved the installation yet',
};

/** `agw whoami`: GET /org/current with the profile's key — organization, installation state, scopes. */
export async function whoami(flags: AgentFlags, context: AgentContext): Promise<void> {
  const connection = await resolveAgentConnection(flags, context);
  const client = agentClient(connection, context, requireKey(connection));
  const current = await client.currentOrg().catch((error: unknown) => {
    // 412 is an expected onboarding state: say in words which code is missing.
    if (GatewayError.isGatewayError(error) && error.code === 'precondition_failed') {
      const missing = (error.details ?? [])
        .map((detail) => MISSING_STEPS[String(detail.missing)] ?? String(detail.missing))
        .map((text) => `  - ${text}`);
      throw new ExitError(
        EXIT.conflict,
        `onboarding is not complete (precondition_failed, HTTP 412):\n${missing.join('\n') || '  - a one-time code is not redeemed'}\n  next: agw onboard${profileFlag(connection)}`,
      );
    }
    return withGateway(() => Promise.reject(error));
  });
  if (flags.json) {
    writeJson(context.io, current);
    return;
  }
  const colors = colorsFor(context.io, context.env);
  const { organization, installation, principal } = current;
  const status = installation.operator_approval_status;
  const statusText =
    status === 'approved'
      ? colors.green(status)
      : status === 'blocked'
        ? colors.red(status)
        : colors.yellow(status);
  context.io.stdout(
    renderFields(
      [
        ['profile', `${connection.profileName} (${connection.url})`],
        ['organization', `${organization.name} (${organization.short_id}, ${organization.id})`],
        ['organization active', organization.is_active ? 'yes' : colors.red('no')],
        ['installation', installation.id],
        ['approval', statusText],
        [
          'owner',
          `${installation.owner_email} (${installation.owner_verified_at ? 'verified' : 'not verified'})`,
        ],
        [
          'agent mailbox',
          installation.agent_email === null
            ? 'not required'
            : `${installation.agent_email} (${installation.agent_email_verification_status})`,
        ],
        ['approved at', formatTime(installation.operator_approved_at)],
        ['scopes', principal.scopes.join(' ') || '-'],
      ],
      colors,
    ),
  );
}
