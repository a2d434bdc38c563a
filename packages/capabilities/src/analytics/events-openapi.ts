import { MAX_BATCH, MAX_PROPERTIES_DEPTH } from './event-input.js';

// The OpenAPI description of POST /a/events (served in /openapi.json): the body parseEvents reads.

const label = (max: number, description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  description: `${description} Display text: no control characters. At most ${max} characters.`,
});
const pageUrl = (description: string) => ({
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: `${description} An absolute http(s) URL.`,
});

/** One event: what a page (the tracker) or a server sends. */
const eventFields = {
  name: {
    ...label(120, 'What happened, e.g. `pageview` (the tracker’s page view) or `signup`.'),
    examples: ['pageview'],
  },
  url: pageUrl('The page the event happened on; its host must be one of the property’s domains.'),
  referrer: pageUrl('Where the visitor came from.'),
  category: label(80, 'A group for custom events, e.g. `funnel`.'),
  source: label(80, 'Where a server-sent event comes from, e.g. `backend`.'),
  outcome: label(80, 'How it ended, e.g. `success`.'),
  properties: {
    type: 'object',
    description: `Free properties of the event: at most 2048 bytes as JSON, ${MAX_PROPERTIES_DEPTH} levels deep.`,
  },
  occurred_at: {
    type: 'string',
    format: 'date-time',
    description: 'When it happened (RFC 3339), within the last 31 days; now when omitted.',
  },
};
const ingestionId = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description:
    'The property’s public ingestion id (analytics.property.manage answers it; safe to put in a page).',
};

const eventsBody = {
  anyOf: [
    {
      title: 'One event',
      type: 'object',
      required: ['ingestion_id', 'name'],
      properties: { ingestion_id: ingestionId, ...eventFields },
    },
    {
      title: 'A batch',
      type: 'object',
      required: ['ingestion_id', 'events'],
      properties: {
        ingestion_id: ingestionId,
        events: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_BATCH,
          items: { type: 'object', required: ['name'], properties: eventFields },
        },
      },
    },
  ],
};

/** POST /a/events: JSON, also sent as text/plain (what `navigator.sendBeacon` sends without a preflight). */
export const eventsOpenApi: Record<string, unknown> = {
  summary: 'Send analytics events (one, or a batch of up to 100) with a property’s public ingestion id',
  tags: ['analytics'],
  requestBody: {
    required: true,
    content: { 'application/json': { schema: eventsBody }, 'text/plain': { schema: eventsBody } },
  },
  responses: {
    '202': {
      description: 'Accepted, written within moments: `{accepted, dropped: {bot, domain}}`',
    },
    '400': { description: 'Invalid body (`details[]` names each field)' },
    '404': { description: 'No active property has this ingestion id' },
    '429': { description: 'Too many events from this address this minute; retry after Retry-After' },
    '503': {
      description:
        'This property’s share of the events waiting for the database is full; retry after Retry-After',
    },
  },
};
