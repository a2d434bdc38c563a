// The worker thread of `agw einvoice validate` (einvoice.ts): detects and validates the bytes it is
// given and posts the outcome. Its own heap is what lets running out of memory end as an answer.
import { parentPort, workerData } from 'node:worker_threads';
import { detectEInvoiceKind, type EInvoiceKind, validateEInvoice } from '@agw/capabilities';

const { bytes, as } = workerData as { bytes: Uint8Array; as?: EInvoiceKind };
const xml = new TextDecoder().decode(bytes);
const kind = as ?? detectEInvoiceKind(xml);
parentPort?.postMessage(kind === undefined ? {} : { kind, report: await validateEInvoice(xml, kind) });
