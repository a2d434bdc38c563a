import { type TProperties, type TString, Type } from '@sinclair/typebox';
import { Described, FreeObject, Nullable, Uuid } from '../schemas/primitives.js';
import { Base64, Input, Output, Text } from './common.js';
import { defineCapability } from './types.js';

const DocumentInput = () =>
  Input({
    document_id: Described(
      Uuid(),
      'The document to render; an issued one (with a number) is rendered once and answered from the archive after.',
    ),
  });

/** Most validation warnings an e-invoice answer lists; past it the last one says how many were left out. */
export const MAX_EXPORT_WARNINGS = 200;

/**
 * The fields every export result starts with: the rendered file, its base64 content under
 * `contentKey` (`pdf_base64` or `xml_base64`), and the archive entry (object or null).
 */
function RenderedFile<const M extends string, const K extends string>(mimeType: M, contentKey: K) {
  const content = {
    [contentKey]: Described(
      Base64(),
      'The file itself, base64 (RFC 4648) encoded; decode it to write the file.',
    ),
  } as Record<K, TString>;
  return {
    filename: Described(
      Text(1, 255),
      'Suggested file name: the document number (draft-<id> for a draft), with a -facturx suffix for Factur-X.',
      ['INV-2025-00042.pdf'],
    ),
    mime_type: Described(Type.Literal(mimeType), 'Media type of the file.'),
    size_bytes: Described(Type.Integer({ minimum: 1 }), 'Size of the decoded file in bytes.'),
    ...content,
    archive: Type.Optional(
      Described(
        Nullable(FreeObject()),
        'The archived copy of an issued document in this format (format, sha256, size_bytes, stored_at): every later call answers these same bytes. Null for a draft, which is rendered afresh each time',
      ),
    ),
  };
}

/**
 * An e-invoice export result (Factur-X, XRechnung): the rendered file, the format and its version,
 * the format's own fields, then the validation report.
 */
function EInvoiceExport<F extends TProperties, S extends TProperties>(file: F, formatFields: S) {
  return Output({
    ...file,
    format: Type.Optional(Described(Type.String(), 'The e-invoice format.', ['xrechnung', 'facturx'])),
    version: Type.Optional(Described(Type.String(), 'Version of the format written.', ['3.0', '1.0'])),
    ...formatFields,
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: MAX_EXPORT_WARNINGS,
        description: `Validation warnings (rules that do not make the file invalid), at most ${MAX_EXPORT_WARNINGS}; the last then says how many more validation holds.`,
      }),
    ),
    validation: Type.Optional(
      Described(
        Nullable(FreeObject()),
        "The validation report of the XML against the format's XSD and Schematron rules (valid, rule_sets, warnings, errors); a file with errors is refused, not answered",
      ),
    ),
  });
}

/** billing.document.pdf. */
export const billingDocumentPdf = defineCapability({
  id: 'billing.document.pdf',
  version: '1.0.0',
  summary:
    'Render a billing document as PDF (base64). Charged once per document and format: an issued document is archived and later reads cost nothing; a draft is rendered and charged each time.',
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
  summary:
    'Render a billing document as Factur-X / ZUGFeRD PDF with embedded XML (base64). Charged once per document and format: later reads come from the archive and cost nothing.',
  tags: ['billing', 'document', 'facturx', 'zugferd', 'e-invoice', 'export'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0.10',
  mutating: false,
  dry_run: 'supported',
  input_schema: DocumentInput(),
  output_schema: EInvoiceExport(RenderedFile('application/pdf', 'pdf_base64'), {
    profile: Type.Optional(Described(Type.String(), 'Factur-X profile of the embedded XML.', ['EN 16931'])),
    syntax: Type.Optional(
      Described(Type.String(), 'Syntax of the embedded XML: CII (UN/CEFACT Cross Industry Invoice).', [
        'CII',
      ]),
    ),
    conformance_level: Type.Optional(
      Described(Type.String(), "Conformance level stated in the PDF's XMP metadata.", ['EN 16931']),
    ),
    attachment_filename: Type.Optional(
      Described(Type.String(), 'Name of the XML embedded in the PDF.', ['factur-x.xml']),
    ),
    embedded_xml_base64: Type.Optional(
      Described(Base64(), 'The embedded CII XML, base64 encoded, for checking it without opening the PDF.'),
    ),
  }),
});

/** billing.document.xrechnung. */
export const billingDocumentXrechnung = defineCapability({
  id: 'billing.document.xrechnung',
  version: '1.0.0',
  summary:
    'Render a billing document as XRechnung XML (base64). Charged once per document and format: later reads come from the archive and cost nothing.',
  tags: ['billing', 'document', 'xrechnung', 'e-invoice', 'export'],
  risk_level: 'low',
  scopes: ['billing:read'],
  cost_credits: '0.10',
  mutating: false,
  dry_run: 'supported',
  input_schema: DocumentInput(),
  output_schema: EInvoiceExport(RenderedFile('application/xml', 'xml_base64'), {
    customization_id: Type.Optional(
      Described(Type.String(), 'The XRechnung specification identifier the XML declares (EN 16931 BT-24).', [
        'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
      ]),
    ),
  }),
});

/** Billing export capabilities (PDF, Factur-X, XRechnung). */
export const billingExportCapabilities = [
  billingDocumentPdf,
  billingDocumentFacturx,
  billingDocumentXrechnung,
] as const;
