import { Setting, settingsSchema } from '@agw/contracts';
import { DEFAULT_RENDER_TIMEOUT_MS, type RenderPoolOptions } from './outputs/render-pool.js';

/** The billing domain's environment variables: the render pool's budget and threads. */
export const billingSettings = settingsSchema({
  BILLING_RENDER_TIMEOUT_MS: Setting.integer({
    default: DEFAULT_RENDER_TIMEOUT_MS,
    minimum: 1,
    maximum: 3_600_000,
    description:
      'budget of one billing rendering (PDF, XRechnung, Factur-X), its wait for a render thread included; past it the invoke answers 503 `dependency_unavailable` (retryable)',
  }),
  BILLING_RENDER_THREADS: Setting.integer({
    minimum: 1,
    maximum: 64,
    defaultText: 'cores − 1, from 1 to 4',
    description: 'worker threads that render billing documents',
  }),
});

/** The render pool's options in `settings` (the values of {@link billingSettings}). */
export function renderingOf(settings: Readonly<Record<string, unknown>>): RenderPoolOptions {
  const threads = settings.BILLING_RENDER_THREADS as number | undefined;
  return {
    timeoutMs: settings.BILLING_RENDER_TIMEOUT_MS as number,
    ...(threads === undefined ? {} : { threads }),
  };
}
