import type { Knex } from 'knex';
import type { GatewayConfig } from '../config.js';
import { IdempotencyStore } from '../idempotency/store.js';
import type { Logger } from '../logger.js';
import { MailOutbox } from '../mail/outbox.js';
import { createMailTransport, type MailTransport } from '../mail/transport.js';
import { createOperatorNotices, type OperatorNotices } from '../operator-notices/notices.js';
import { defaultOtpSettings, type OtpSettings } from '../otp/otp-service.js';
import { SecretBox } from '../secrets/secret-box.js';
import { loadServerSecret } from '../secrets/server-secret.js';

/** Everything the access routes share: storage, secrets, idempotency, the outbox and the code rules. */
export interface AccessServices {
  readonly knex: Knex;
  readonly box: SecretBox;
  readonly idempotency: IdempotencyStore;
  readonly outbox: MailOutbox;
  readonly otp: OtpSettings;
  /** Mail to OPERATOR_EMAIL when an installation or a run approval starts waiting. */
  readonly notices: OperatorNotices;
  /** Starts the periodic outbox drain (retries of failed sends) and the operator digest. */
  start(): void;
  /** Stops the drain, waits for sends in flight and closes the mail transport. */
  stop(): Promise<void>;
}

/** Options of {@link createAccessServices}. */
export interface AccessServicesOptions {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly knex: Knex;
  /** A transport to use instead of the one SMTP_URL selects (tests). */
  readonly transport?: MailTransport;
}

const DRAIN_EVERY_MS = 30_000;
const DEFAULT_DIGEST_SECONDS = 300;
const DEFAULT_FROM = 'Agent Gateway <no-reply@localhost>';

/**
 * Builds the access services from the configuration: the server secret (SECRET_KEY or
 * DATA_DIR/secret.key), the PostgreSQL idempotency store, the mail transport (SMTP_URL or the dev
 * mailbox) behind the outbox, and the one-time code settings.
 */
export function createAccessServices(options: AccessServicesOptions): AccessServices {
  const { config, logger, knex } = options;
  const box = new SecretBox(loadServerSecret(config, logger));
  const transport = options.transport ?? createMailTransport(config);
  const outbox = new MailOutbox(knex, box, transport, config.mailFrom ?? DEFAULT_FROM, logger);
  const notices = createOperatorNotices({
    knex,
    box,
    outbox,
    recipients: config.operatorEmails ?? [],
    digestSeconds: config.operatorDigestSeconds ?? DEFAULT_DIGEST_SECONDS,
    publicBaseUrl: config.publicBaseUrl,
    logger,
  });
  let timer: NodeJS.Timeout | undefined;
  return {
    knex,
    box,
    idempotency: new IdempotencyStore(knex, box),
    outbox,
    notices,
    otp: {
      ...defaultOtpSettings,
      ownerTtlSeconds: config.ownerOtpTtlSeconds ?? defaultOtpSettings.ownerTtlSeconds,
      agentTtlSeconds: config.agentOtpTtlSeconds ?? defaultOtpSettings.agentTtlSeconds,
      resendCooldownSeconds: config.otpResendCooldownSeconds ?? defaultOtpSettings.resendCooldownSeconds,
    },
    start() {
      if (timer) return;
      timer = setInterval(() => {
        outbox.drain().catch((error: unknown) => logger.error({ err: error }, 'mail drain failed'));
        // A digest is due at most this late after its window ends.
        notices.digest().catch((error: unknown) => logger.error({ err: error }, 'operator digest failed'));
      }, DRAIN_EVERY_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await outbox.idle();
      transport.close();
    },
  };
}
