import type { DomainHost, DomainService } from '../../domain.js';
import { warmUpEInvoiceValidation } from './validate/index.js';

/**
 * At gateway start, readies the e-invoice validator in the background (parses the compiled rules,
 * prepares each stylesheet, starts the xmllint worker: about 1 s of CPU and 60 MB of heap once per
 * process), so the first XRechnung or Factur-X is not the one that pays for it. Serving does not wait:
 * a validation that arrives first waits for this same warm-up. A failure is logged and retried by the
 * first validation, which then answers the error.
 */
export function startBillingOutputs(host: DomainHost): DomainService {
  const started = Date.now();
  warmUpEInvoiceValidation().then(
    () => host.log.info({ ms: Date.now() - started }, 'e-invoice validation ready'),
    (error: unknown) =>
      host.log.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'e-invoice validation warm-up failed; the first validation retries it',
      ),
  );
  return {};
}
