// The walk-throughs of /llms.txt, one per domain: `http` blocks in the convention the text states under
// "How to read the examples" (request line, headers, blank line, body; then `→ status · $NAME = path`).
// test/llms-txt-walkthrough.test.ts runs every block in order, as written.

/** One request as an `http` block, followed by the `→` line of what it answers. */
function step(request: string, answer: string): string {
  return `\`\`\`http\n${request}\n\`\`\`\n→ ${answer}`;
}

/** POST /mcp/invoke with the installation key. */
function invoke(b: string, body: string, answer: string): string {
  return step(
    `POST ${b}/mcp/invoke\nAuthorization: Bearer $KEY\nContent-Type: application/json\n\n${body}`,
    answer,
  );
}

/**
 * The operator's approval of `$APPROVAL_ID`: a person's step, not the agent's, so no request is shown
 * (the admin API stays out of every discovery document); the test takes it through the admin API.
 */
function operatorApproves(): string {
  return '⏸ The operator approves $APPROVAL_ID (in the console at /console/approvals, or `agw approvals approve $APPROVAL_ID`); wait until they have: the next invoke with the token answers `pending_approval` until then.';
}

const PENDING =
  '200, status `pending_approval` · $APPROVAL_ID = approval.approval_id · $APPROVAL_TOKEN = approval.approval_token';

function billing(b: string): string {
  return `## Walk-through: billing (quote to cash, e-invoice, send)

Keep a small business's books: customers, quotes, orders, invoices with exact EN 16931 totals, gap-free
invoice numbers, e-invoices (XRechnung, Factur-X), mail, payments and reminders. Scopes \`billing:read\`
and \`billing:write\` (a new installation has both); the steps cost credits (describe says how many), so
the operator credits the wallet first. Amounts are JSON numbers in the document's currency, computed
exactly (VAT per rate group, half-up).

1. The bank account your invoices name for payment. It is risk high: the first invoke answers
   \`pending_approval\`; once the operator approved, invoke the same params again with "approval_token"
   (and a new idempotency key).

${invoke(b, '{"id":"billing.bank_account.save","params":{"display_name":"Main account","account_holder":"Example GmbH","iban":"DE89 3704 0044 0532 0130 00","bic":"COBADEFFXXX"},"idempotency_key":"llms-billing-01-bank"}', PENDING)}

${operatorApproves()}

${invoke(b, '{"id":"billing.bank_account.save","params":{"display_name":"Main account","account_holder":"Example GmbH","iban":"DE89 3704 0044 0532 0130 00","bic":"COBADEFFXXX"},"approval_token":"$APPROVAL_TOKEN","idempotency_key":"llms-billing-01-bank-approved"}', '200 · $BANK_ACCOUNT_ID = result.bank_account.id')}

2. Your issuer profile: who you are on every document, and how documents are numbered (\`{SEQ:5}\` is a
   5-digit counter per year).

${invoke(b, '{"id":"billing.profile.save","params":{"display_name":"Example GmbH","issuer_name":"Example GmbH","issuer_address_line1":"Große Straße 1","issuer_postal_code":"10115","issuer_city":"Berlin","issuer_country":"DE","issuer_vat_id":"DE123456789","issuer_email":"billing@example.com","locale":"de-DE","default_bank_account_id":"$BANK_ACCOUNT_ID","number_patterns":{"invoice":"RE-{YYYY}-{SEQ:5}"}},"idempotency_key":"llms-billing-02-profile"}', '200')}

3. The customer, who takes Factur-X (a PDF with the invoice's XML inside):

${invoke(b, '{"id":"billing.account.save","params":{"name":"Muster GmbH","address_line1":"Amtsweg 5","postal_code":"20095","city":"Hamburg","country_code":"DE","email":"ap@muster.example","vat_id":"DE987654321","e_invoice_format":"facturx","payment_terms_days":14},"idempotency_key":"llms-billing-03-account"}', '200 · $ACCOUNT_ID = result.account.id')}

4. A quote (result.totals: 300.00 net, 57.00 VAT, 357.00 total):

${invoke(b, '{"id":"billing.document.create_draft","params":{"document_type":"quote","document_date":"2026-11-26","account_id":"$ACCOUNT_ID","title":"Website relaunch","lines":[{"item_name":"Consulting","quantity":2,"unit":"HUR","unit_price":150,"tax_percent":19}]},"idempotency_key":"llms-billing-04-quote"}', '200 · $QUOTE_ID = result.document_id')}

5. Accepted: the quote becomes a sales order, and once delivered the order becomes a draft invoice.

${invoke(b, '{"id":"billing.document.convert_quote_to_order","params":{"source_document_id":"$QUOTE_ID"},"idempotency_key":"llms-billing-05-order"}', '200 · $ORDER_ID = result.document_id')}

${invoke(b, '{"id":"billing.document.convert_order_to_invoice","params":{"source_document_id":"$ORDER_ID"},"idempotency_key":"llms-billing-06-invoice"}', '200 · $INVOICE_ID = result.document_id')}

6. Issue it: finalize assigns the number (RE-<year>-00001 for the year's first) and freezes it for good.

${invoke(b, '{"id":"billing.document.finalize","params":{"document_id":"$INVOICE_ID"},"idempotency_key":"llms-billing-07-finalize"}', '200 · $NUMBER = result.number')}

7. The e-invoice: Factur-X, checked against the official rules before it is answered (pdf_base64,
   embedded_xml_base64, validation). XRechnung works the same with billing.document.xrechnung (the
   customer then needs a buyer_reference, the Leitweg-ID). Charged once: a second read is free.

${invoke(b, '{"id":"billing.document.facturx","params":{"document_id":"$INVOICE_ID"}}', '200')}

8. Send it: a mail to the customer with the Factur-X PDF (the account's e_invoice_format); the invoice
   becomes \`sent\`.

${invoke(b, '{"id":"billing.document.send","params":{"document_id":"$INVOICE_ID"},"idempotency_key":"llms-billing-08-send"}', '200')}

9. The money arrives. payment.record is risk high, so it takes the operator's approval as in step 1;
   more than the open balance is refused at once, naming it, without asking anyone.

${invoke(b, '{"id":"billing.payment.record","params":{"document_id":"$INVOICE_ID","amount":357,"payment_method":"bank_transfer"},"idempotency_key":"llms-billing-09-payment"}', PENDING)}

${operatorApproves()}

${invoke(b, '{"id":"billing.payment.record","params":{"document_id":"$INVOICE_ID","amount":357,"payment_method":"bank_transfer"},"approval_token":"$APPROVAL_TOKEN","idempotency_key":"llms-billing-09-payment-approved"}', '200')}

10. Check: status \`paid\`, balance 0, the payment listed.

${invoke(b, '{"id":"billing.document.read","params":{"document_id":"$INVOICE_ID"}}', '200 · $STATUS = result.document.status · $BALANCE = result.document.balance')}

What is still open: billing.document.list with {"open_filter":"open"}. An overdue open invoice gets the
next reminder level with billing.reminder.create. A mistake on an issued invoice is corrected with a
credit_note (create_draft with corrects_document_id, then finalize); billing.document.void of an issued
invoice needs an operator's approval.`;
}

function calendar(b: string): string {
  return `## Walk-through: calendar (availability, a booking link, the page a person opens, the booking)

Your owner's hours, a link a person books through, and the booking as you see it. Scope
\`calendar:write\`; free. Times are wall-clock times in the calendar's zone (the default calendar, made on
first use, is UTC; calendar.calendar.manage changes it); day_of_week 0 is Sunday.

1. The weekly hours, every day 08:00 to 20:00:

${invoke(b, '{"id":"calendar.availability.manage","params":{"operation":"replace","rules":[{"day_of_week":0,"start_time":"08:00","end_time":"20:00"},{"day_of_week":1,"start_time":"08:00","end_time":"20:00"},{"day_of_week":2,"start_time":"08:00","end_time":"20:00"},{"day_of_week":3,"start_time":"08:00","end_time":"20:00"},{"day_of_week":4,"start_time":"08:00","end_time":"20:00"},{"day_of_week":5,"start_time":"08:00","end_time":"20:00"},{"day_of_week":6,"start_time":"08:00","end_time":"20:00"}]},"idempotency_key":"llms-calendar-01-hours"}', '200')}

2. A public booking link (anyone with the URL may book; \`access_mode: secret\` makes one only its
   recipient can open, through calendar.booking_link.issue_secret). result.url is the page to send:

${invoke(b, '{"id":"calendar.booking_link.manage","params":{"operation":"create","title":"Intro call","access_mode":"public","one_time_use":false},"idempotency_key":"llms-calendar-02-link"}', '200 · $LINK_URL = result.url')}

3. The page a person opens: HTML that shows the free times in their zone and books one (it works
   without JavaScript).

${step('GET $LINK_URL\nAccept: text/html', '200 (text/html)')}

4. The same page's JSON API, which you may use too: the free times, then a booking.

${step('GET $LINK_URL/slots?tz=Europe/Berlin\nAccept: application/json', '200 · $START = slots.0.start')}

${step('POST $LINK_URL/bookings\nContent-Type: application/json\n\n{"start":"$START","name":"Kim Lee","email":"kim@example.com","timezone":"Europe/Berlin"}', '201 · $BOOKING_ID = booking.id')}

   Both sides get a mail with an .ics invitation.

5. The booking as you see it (a list is a read: no idempotency_key):

${invoke(b, '{"id":"calendar.booking.manage","params":{"operation":"list"}}', '200 · $LISTED_ID = result.bookings.0.id')}

Move it with {"operation":"update","booking_id":...,"start_at":...} (409 \`conflict\` when the time is
taken) or cancel it with {"operation":"cancel","booking_id":...}; both mail the person again.`;
}

function analytics(b: string): string {
  return `## Walk-through: analytics (a property, the tracker, events, stats)

Cookieless page views and custom events of your owner's site. Scopes \`analytics:write\` and
\`analytics:read\`; free.

1. A property for the site; its ingestion_id is public (it goes into the page):

${invoke(b, '{"id":"analytics.property.manage","params":{"operation":"create","name":"Shop","domains":["shop.example.com"],"timezone":"Europe/Berlin"},"idempotency_key":"llms-analytics-01-property"}', '200 · $INGESTION_ID = result.property.ingestion_id')}

2. The tracker: the site's pages include this line (a page view on load; \`agw('signup', {plan: 'pro'})\`
   sends a custom event):

\`\`\`html
<script defer src="${b}/a/script.js" data-id="$INGESTION_ID"></script>
\`\`\`

${step(`GET ${b}/a/script.js`, '200 (text/javascript)')}

3. Events can also come from a server (or from you): POST /a/events, no key. Forward the User-Agent of
   the visitor the event is about: a program's own (curl, Node, Python) counts as a bot's and its
   events are dropped. A page view names its url, whose host must be one of the property's domains.

${step(`POST ${b}/a/events\nContent-Type: application/json\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\n\n{"ingestion_id":"$INGESTION_ID","name":"pageview","url":"https://shop.example.com/pricing"}`, '202 · $ACCEPTED = accepted')}

4. The stats (today, by hour). Events are written within a few seconds: if totals.pageviews is still 0,
   read again shortly.

${invoke(b, '{"id":"analytics.stats.read","params":{"granularity":"hour"}}', '200 · $PAGEVIEWS = result.totals.pageviews')}

analytics.events.read lists single events (errors_only: true for those with outcome \`error\`).`;
}

function assist(b: string): string {
  return `## Walk-through: assist (save, a new version, read)

Keep what you write for your owner — drafts, summaries, plans — with every version. Scopes
\`assist:write\` and \`assist:read\`; free.

1. Save a new artifact (version 1):

${invoke(b, '{"id":"assist.artifact.save","params":{"title":"Launch plan","artifact_type":"plan","content":"1. Announce on Monday","content_format":"markdown"},"idempotency_key":"llms-assist-01-save"}', '200 · $ARTIFACT_ID = result.artifact.id')}

2. Save changed content to it: version 2 (identical content makes no version):

${invoke(b, '{"id":"assist.artifact.save","params":{"artifact_id":"$ARTIFACT_ID","content":"1. Announce on Monday\\n2. Mail the customers on Tuesday"},"idempotency_key":"llms-assist-02-version"}', '200 · $VERSION = result.version.version')}

3. Read it: the current content and its versions (\`"version": 1\` reads an earlier one):

${invoke(b, '{"id":"assist.artifact.read","params":{"artifact_id":"$ARTIFACT_ID","include_versions":true}}', '200 · $CONTENT_VERSION = result.artifact.content_version')}

assist.artifact.list finds artifacts by words in their title and content.`;
}

/** The four walk-throughs, billing first. */
export function walkThroughs(b: string): string {
  return [billing(b), calendar(b), analytics(b), assist(b)].join('\n\n');
}
