import { contractOf } from '../contract-of.js';

/**
 * The `maxItems` of a list in a billing contract: the contract is the one place a bound is written
 * (describe and the OpenAPI document show it); the handlers that make such a list hold to it.
 */
function maxItemsOf(id: string, side: 'input_schema' | 'output_schema', property: string): number {
  const schema = contractOf(id)[side] as { properties?: Record<string, { maxItems?: unknown }> };
  const maxItems = schema.properties?.[property]?.maxItems;
  if (typeof maxItems !== 'number') throw new Error(`${id} ${side} has no maxItems on ${property}`);
  return maxItems;
}

/** Most lines a document takes (billing.document.create_draft `lines`). */
export const MAX_DOCUMENT_LINES = maxItemsOf('billing.document.create_draft', 'input_schema', 'lines');

/** Most payments a document records (billing.document.read `payments`). */
export const MAX_DOCUMENT_PAYMENTS = maxItemsOf('billing.document.read', 'output_schema', 'payments');

/** Most deliveries a document keeps (billing.document.read `deliveries`). */
export const MAX_DOCUMENT_DELIVERIES = maxItemsOf('billing.document.read', 'output_schema', 'deliveries');

/** Most warnings an e-invoice answer lists (billing.document.facturx and .xrechnung `warnings`). */
export const MAX_EXPORT_WARNINGS = maxItemsOf('billing.document.facturx', 'output_schema', 'warnings');
