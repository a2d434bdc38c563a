import { randomBytes } from 'node:crypto';
import { contractOf } from '../contract-of.js';
import { CapabilityError, defineCapabilityHandler } from '../define.js';
import { runStatement } from '../sql.js';
import { propertyRecord, refuse } from './property.js';
import { insertProperty, type PropertyRow, selectProperties, selectProperty, updateProperty } from './sql.js';

interface ManageInput {
  readonly operation: 'list' | 'create' | 'update' | 'archive';
  readonly property_id?: string;
  readonly name?: string;
  readonly domains?: string[];
  readonly timezone?: string;
  readonly retention_days?: number;
}

const ZONES = new Set(Intl.supportedValuesOf('timeZone'));
const DEFAULT_RETENTION_DAYS = 400;
/** Active properties per organization: the `maxItems` of the contract's `properties` (what `list` answers). */
export const MAX_ACTIVE_PROPERTIES = 100;

function zone(value: string | undefined, fallback: string): string {
  const timezone = value ?? fallback;
  if (timezone !== 'UTC' && !ZONES.has(timezone))
    refuse('/params/timezone', 'must be an IANA time zone such as Europe/Berlin');
  return timezone;
}

/** A public ingestion id: not a secret (pages carry it), but unguessable so ids cannot be enumerated. */
function ingestionId(): string {
  return `ap_${randomBytes(12).toString('base64url')}`;
}

/**
 * `analytics.property.manage`: list (active ones; archived too is not offered), create (name and
 * domains required; time zone UTC and retention 400 days unless given; at most MAX_ACTIVE_PROPERTIES
 * active ones), update, archive (ingestion
 * stops within 30 s; its events stay readable until retention deletes them).
 */
export const analyticsPropertyManageHandler = defineCapabilityHandler<ManageInput, unknown>({
  contract: contractOf('analytics.property.manage'),
  async handle(input, ctx) {
    const org = ctx.organizationId;
    if (input.operation === 'list') {
      const { rows } = await runStatement<PropertyRow>(ctx.sql, selectProperties, [org, false]);
      return { operation: 'list', properties: rows.map(propertyRecord), count: rows.length };
    }
    if (input.operation === 'create') {
      if (input.name === undefined) refuse('/params/name', 'is required to create a property');
      if (input.domains === undefined) refuse('/params/domains', 'is required to create a property');
      const active = await runStatement<PropertyRow>(ctx.sql, selectProperties, [org, false]);
      if (active.rows.length >= MAX_ACTIVE_PROPERTIES) {
        throw new CapabilityError(
          'conflict',
          `This organization has ${MAX_ACTIVE_PROPERTIES} active analytics properties, the most it may have; archive one first.`,
        );
      }
      const { rows } = await runStatement<PropertyRow>(ctx.sql, insertProperty, [
        ctx.ids.uuid(),
        org,
        input.name,
        JSON.stringify(input.domains.map((domain) => domain.toLowerCase())),
        zone(input.timezone, 'UTC'),
        ingestionId(),
        input.retention_days ?? DEFAULT_RETENTION_DAYS,
        ctx.now,
      ]);
      return { operation: 'create', property: propertyRecord(rows[0] as PropertyRow) };
    }
    if (input.property_id === undefined)
      refuse('/params/property_id', `is required to ${input.operation} a property`);
    const current = (await runStatement<PropertyRow>(ctx.sql, selectProperty, [org, input.property_id]))
      .rows[0];
    if (current === undefined) {
      throw new CapabilityError(
        'not_found',
        `No analytics property ${input.property_id} in this organization.`,
      );
    }
    const { rows } = await runStatement<PropertyRow>(ctx.sql, updateProperty, [
      org,
      current.id,
      input.name ?? current.name,
      JSON.stringify((input.domains ?? current.domains).map((domain) => domain.toLowerCase())),
      zone(input.timezone, current.timezone),
      input.retention_days ?? current.retention_days,
      input.operation === 'archive' ? (current.archived_at ?? ctx.now) : current.archived_at,
      ctx.now,
    ]);
    return { operation: input.operation, property: propertyRecord(rows[0] as PropertyRow) };
  },
});
