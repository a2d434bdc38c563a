// The OpenAPI descriptions of the booking page's public routes (served in /openapi.json beside the
// gateway's own): what an agent or a person's tool may call without a key.

const pathParams = (secret: boolean) => [
  { name: 'slug', in: 'path', required: true, schema: { type: 'string' } },
  ...(secret
    ? [
        {
          name: 'secret',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          description: 'The secret issue_secret showed once.',
        },
      ]
    : []),
];
const errors = {
  '404': { description: 'Unknown, revoked, booked or expired link, or a wrong secret (all alike)' },
  '429': {
    description:
      'Rate limited per client address, or (bookings) the link’s or organization’s hourly cap; retry_after_seconds says when',
  },
};

export function pageOpenApi(secret: boolean): Record<string, unknown> {
  return {
    summary: secret ? 'The booking page of a secret link' : 'The booking page of a public link',
    parameters: [...pathParams(secret), { name: 'tz', in: 'query', schema: { type: 'string' } }],
    responses: { '200': { description: 'HTML page', content: { 'text/html': {} } }, ...errors },
  };
}

export function slotsOpenApi(secret: boolean): Record<string, unknown> {
  return {
    summary: 'Free slots of a booking link',
    parameters: [
      ...pathParams(secret),
      { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time' } },
      { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time' } },
      {
        name: 'tz',
        in: 'query',
        schema: { type: 'string' },
        description: 'IANA zone for local_date and local_time',
      },
      { name: 'event_type_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
    ],
    responses: {
      '200': {
        description: 'Slots, at most the link’s slot_limit; next_from continues',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                timezone: { type: 'string' },
                slots: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      start: { type: 'string', format: 'date-time' },
                      end: { type: 'string', format: 'date-time' },
                      local_date: { type: 'string' },
                      local_time: { type: 'string' },
                    },
                  },
                },
                more: { type: 'boolean' },
                next_from: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
      '400': { description: 'Bad tz, from or to (ISO 8601, within 400 days of now, at most 92 days apart)' },
      ...errors,
    },
  };
}

const bookingBody = {
  type: 'object',
  required: ['start', 'name', 'email'],
  properties: {
    start: { type: 'string', format: 'date-time' },
    event_type_id: { type: 'string', format: 'uuid' },
    name: { type: 'string', maxLength: 160 },
    email: { type: 'string', maxLength: 320 },
    phone: { type: 'string', maxLength: 40 },
    note: { type: 'string', maxLength: 2000 },
    timezone: { type: 'string' },
  },
};

export function bookOpenApi(secret: boolean): Record<string, unknown> {
  return {
    summary: 'Book a slot of a booking link',
    parameters: pathParams(secret),
    // The page's form posts the same fields urlencoded (a browser without JavaScript).
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: bookingBody },
        'application/x-www-form-urlencoded': { schema: bookingBody },
      },
    },
    responses: {
      '201': { description: 'Booked; both sides get a mail with an .ics' },
      '400': { description: 'Invalid fields' },
      '403': {
        description: 'email_binding_required: only the recipient may book, or a cross-site form post',
      },
      '409': { description: 'slot_taken: the time is no longer free' },
      ...errors,
    },
  };
}
