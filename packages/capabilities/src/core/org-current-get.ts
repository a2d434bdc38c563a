import { type CapabilityIO, findCapabilityContract } from '@agw/contracts';
import { CapabilityError, defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { type OrganizationRow, selectOrganization } from './sql.js';

const contract = findCapabilityContract('core.org.current.get', '1.0.0');
if (!contract) throw new Error('contracts package lacks core.org.current.get');

/** `core.org.current.get`: the calling installation's organization (id from the context, not params). */
export const coreOrgCurrentGetHandler = defineCapabilityHandler<
  Record<string, never>,
  CapabilityIO['core.org.current.get']['output']
>({
  contract,
  async handle(_input, ctx) {
    const { rows } = await runStatement<OrganizationRow>(ctx.sql, selectOrganization, [ctx.organizationId]);
    const [row] = rows;
    if (!row) throw new CapabilityError('not_found', 'The organization no longer exists.');
    const { id, name, short_id, is_active, created_at, updated_at } = row;
    return {
      organization: {
        id,
        name,
        short_id,
        is_active,
        created_at: created_at.toISOString(),
        updated_at: updated_at.toISOString(),
      },
    };
  },
});
