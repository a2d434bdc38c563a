import { findCapabilityContract } from '@agw/contracts';
import { CapabilityError, defineCapabilityHandler, type OrganizationRecord } from '../define.js';

const contract = findCapabilityContract('core.org.current.get', '1.0.0');
if (!contract) throw new Error('contracts package lacks core.org.current.get');

/** `core.org.current.get`: the calling installation's organization (id from the context, not params). */
export const coreOrgCurrentGetHandler = defineCapabilityHandler<
  Record<string, never>,
  { organization: OrganizationRecord }
>({
  contract,
  async handle(_input, ctx) {
    const organization = await ctx.db.getOrganization(ctx.organizationId);
    if (!organization) throw new CapabilityError('not_found', 'The organization no longer exists.');
    const { id, name, short_id, is_active, created_at, updated_at } = organization;
    return { organization: { id, name, short_id, is_active, created_at, updated_at } };
  },
});
