import { type TProperties, type TString, Type } from '@sinclair/typebox';
import { FreeObject, Nullable, Uuid } from '../schemas/primitives.js';
import { Base64, Input, Output, Text } from './common.js';
import { defineCapability } from './types.js';

const DocumentInput = () => Input({ document_id: Uuid() });

/** Most validation warnings an e-invoice answer lists; past it the last one says how many were left out. */
export const MAX_EXPORT_WARNINGS = 200;
const NullableObject = () => Type.Optional(Nullable(FreeObject()));

/**
 * The fields every export result starts with: the rendered file, its base64 content under
 * `contentKey` (`pdf_base64` or `xml_base64`), and the archive entry (object or null).
 */
function RenderedFile<const M extends string, const K extends string>(mimeType: M, contentKey: K) {
  const content = { [contentKey]: Base64() } as Record<K, TString>;
  return {
    filename: Text(1, 255),
    mime_type: Type.Literal(mimeType),
    size_bytes: Type.Integer({ minimum: 1 }),
    ...content,
    archive: NullableObject(),
  };
}

/**
 * An e-invoice export result (Factur-X, XRechnung): the rendered file, the format and its version,
 * the format's own fields, then the validation report.
 */
function EInvoiceExport<F extends TProperties, S extends TProperties>(file: F, formatFields: S) {
  return Output({
    ...file,
    format: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    ...formatFields,
    warnings: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_EXPORT_WARNINGS })),
    validation: NullableObject(),
  });
}

/** billing.document.pdf. */
export const billingDocumentPdf = defineCapability({
  id: 'billing.document.pdf',
  version: '1.0.0',
  summary: 'Render a billing document as PDF (base64).',
  tags: ['billing', 'document', 'pdf', 'export'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0.05',
  mutating: false,
  dry_run: 'supported',
  input_schema: DocumentInput(),
  output_schema: Output(RenderedFile('application/pdf', 'pdf_base64')),
});

/** billing.document.facturx. */
export const billingDocumentFacturx = defineCapability({
  id: 'billing.document.facturx',
  version: '1.0.0',
  summary: 'Render a billing document as Factur-X / ZUGFeRD PDF with embedded XML (base64).',
  tags: ['billing', 'document', 'facturx', 'zugferd', 'e-invoice', 'export'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0.10',
  mutating: false,
  dry_run: 'supported',
  input_schema: DocumentInput(),
  output_schema: EInvoiceExport(RenderedFile('application/pdf', 'pdf_base64'), {
    profile: Type.Optional(Type.String()),
    syntax: Type.Optional(Type.String()),
    conformance_level: Type.Optional(Type.String()),
    attachment_filename: Type.Optional(Type.String()),
    embedded_xml_base64: Type.Optional(Base64()),
  }),
});

/** billing.document.xrechnung. */
export const billingDocumentXrechnung = defineCapability({
  id: 'billing.document.xrechnung',
  version: '1.0.0',
  summary: 'Render a billing document as XRechnung XML (base64).',
  tags: ['billing', 'document', 'xrechnung', 'e-invoice', 'export'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0.10',
  mutating: false,
  dry_run: 'supported',
  input_schema: DocumentInput(),
  output_schema: EInvoiceExport(RenderedFile('application/xml', 'xml_base64'), {
    customization_id: Type.Optional(Type.String()),
  }),
});

/** Billing export capabilities (PDF, Factur-X, XRechnung). */
export const billingExportCapabilities = [
  billingDocumentPdf,
  billingDocumentFacturx,
  billingDocumentXrechnung,
] as const;
