import { type CapabilityContext, CapabilityError } from '../define.js';
import { runStatement } from '../sql.js';
import { type PropertyRow, selectProperties, selectProperty } from './sql.js';

export function refuse(pointer: string, message: string): never {
  throw new CapabilityError('validation_failed', `${pointer} ${message}`, [
    { schema_pointer: pointer, keyword: 'analytics', message },
  ]);
}

/** A property as the capabilities answer it. */
export function propertyRecord(row: PropertyRow) {
  return {
    id: row.id,
    name: row.name,
    domains: row.domains,
    timezone: row.timezone,
    ingestion_id: row.ingestion_id,
    retention_days: row.retention_days,
    archived: row.archived_at !== null,
    archived_at: row.archived_at === null ? null : new Date(row.archived_at).toISOString(),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/**
 * The property a read is about: `property_id` (archived ones too: their events stay readable), or the
 * organization's only active property when none is named.
 */
export async function propertyToRead(
  ctx: CapabilityContext,
  propertyId: string | undefined,
): Promise<PropertyRow> {
  if (propertyId !== undefined) {
    const row = (await runStatement<PropertyRow>(ctx.sql, selectProperty, [ctx.organizationId, propertyId]))
      .rows[0];
    if (row === undefined)
      throw new CapabilityError('not_found', `No analytics property ${propertyId} in this organization.`);
    return row;
  }
  const { rows } = await runStatement<PropertyRow>(ctx.sql, selectProperties, [ctx.organizationId, false]);
  if (rows.length === 1) return rows[0] as PropertyRow;
  refuse(
    '/params/property_id',
    rows.length === 0
      ? 'is required: this organization has no analytics property yet (analytics.property.manage create)'
      : `is required: this organization has ${rows.length} properties`,
  );
}

/** The read window: `from`..`to`, by default the 7 days up to now; `from` must be before `to`. */
export function windowOf(
  ctx: CapabilityContext,
  input: { from?: string; to?: string },
): { from: Date; to: Date } {
  const to = input.to === undefined ? ctx.now : new Date(input.to);
  const from = input.from === undefined ? new Date(to.getTime() - 7 * 86_400_000) : new Date(input.from);
  if (from.getTime() >= to.getTime()) refuse('/params/from', 'must be before to');
  if (to.getTime() - from.getTime() > 400 * 86_400_000)
    refuse('/params/from', 'must be at most 400 days before to');
  return { from, to };
}
