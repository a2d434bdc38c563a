import { Setting, settingsSchema } from '@agw/contracts';

/** The analytics domain's environment variables. */
export const analyticsSettings = settingsSchema({
  ANALYTICS_EVENTS_PER_MINUTE: Setting.integer({
    default: 600,
    minimum: 1,
    // The benchmark sends from one address without a limit worth the name.
    maximum: 1_000_000_000,
    description:
      'events (not requests: a batch of 100 counts 100) per client address and minute on `POST /a/events`, counted in each gateway process; past it 429 with `Retry-After`',
  }),
});

/** Events per client address and minute in `settings` (the values of {@link analyticsSettings}). */
export function eventsPerMinuteOf(settings: Readonly<Record<string, unknown>>): number {
  return settings.ANALYTICS_EVENTS_PER_MINUTE as number;
}
