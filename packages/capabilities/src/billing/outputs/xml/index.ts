export { ciiFacturX } from './cii.js';
export { type EInvoiceSource, XRECHNUNG_CUSTOMIZATION_ID } from './facts.js';
export { missingBusinessTerms } from './requirements.js';
export { xrechnungUbl } from './ubl.js';
