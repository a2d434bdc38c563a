import type { OrgCurrentResponse } from '@agw/contracts';
import type { AccessContext, Caller } from './context.js';
import { assertInitialPathDone } from './installation-checks.js';
import { authenticateInstallation } from './otp-handlers.js';
import type { AccessServices } from './services.js';
import { type InstallationRow, installationView, type OrganizationRow, organizationView } from './views.js';

/**
 * GET /org/current: 412 `precondition_failed` until the owner code is claimed (and the agent mailbox
 * verified when set); afterwards 200 whatever the approval — pending, approved (with
 * operator_approved_at) or blocked — and also for an inactive organization (`is_active: false`), so
 * the agent can read the stop signal.
 */
export async function orgCurrent(
  ctx: AccessContext,
  services: AccessServices,
  caller: Caller,
): Promise<void> {
  const auth = await authenticateInstallation(ctx, services, caller);
  const installationId = auth.row.installation_id as string;
  const organizationId = auth.row.organization_id as string;
  await assertInitialPathDone(services.knex, installationId, organizationId);
  const installation = (await services
    .knex('installations')
    .where({ id: installationId })
    .first()) as InstallationRow;
  const organization = (await services
    .knex('organizations')
    .where({ id: organizationId })
    .first()) as OrganizationRow;
  const response: OrgCurrentResponse = {
    organization: organizationView(organization),
    installation: installationView(installation),
    principal: {
      sb_user_id: installation.sb_user_id,
      installation_id: installation.id,
      scopes: [...auth.row.scopes],
    },
  };
  ctx.status = 200;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify(response);
}
