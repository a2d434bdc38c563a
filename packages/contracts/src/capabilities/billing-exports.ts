import { Type } from '@sinclair/typebox';
import { FreeObject, Nullable, Uuid } from '../schemas/primitives.js';
import { Input, Output, Text } from './common.js';
import { defineCapability } from './types.js';

const DocumentInput = () => Input({ document_id: Uuid() });
const Archive = () => Type.Optional(Nullable(FreeObject()));
const Filename = () => Text(1, 255);
const Base64 = () => Type.String({ minLength: 1, pattern: '^[A-Za-z0-9+/]*={0,2}$' });

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
  output_schema: Output({
    filename: Filename(),
    mime_type: Type.Literal('application/pdf'),
    size_bytes: Type.Integer({ minimum: 1 }),
    pdf_base64: Base64(),
    archive: Archive(),
  }),
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
  output_schema: Output({
    filename: Filename(),
    mime_type: Type.Literal('application/pdf'),
    size_bytes: Type.Integer({ minimum: 1 }),
    pdf_base64: Base64(),
    archive: Archive(),
    format: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    profile: Type.Optional(Type.String()),
    syntax: Type.Optional(Type.String()),
    conformance_level: Type.Optional(Type.String()),
    attachment_filename: Type.Optional(Type.String()),
    embedded_xml_base64: Type.Optional(Base64()),
    warnings: Type.Optional(Type.Array(Type.String())),
    validation: Type.Optional(Nullable(FreeObject())),
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
  output_schema: Output({
    filename: Filename(),
    mime_type: Type.Literal('application/xml'),
    size_bytes: Type.Integer({ minimum: 1 }),
    xml_base64: Base64(),
    archive: Archive(),
    format: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    customization_id: Type.Optional(Type.String()),
    warnings: Type.Optional(Type.Array(Type.String())),
    validation: Type.Optional(Nullable(FreeObject())),
  }),
});

/** Billing export capabilities (PDF, Factur-X, XRechnung). */
export const billingExportCapabilities = [
  billingDocumentPdf,
  billingDocumentFacturx,
  billingDocumentXrechnung,
] as const;
