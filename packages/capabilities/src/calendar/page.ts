import { DateTime, Info } from 'luxon';
import type { BookingRow } from './bookings.js';
import type { EventTypeRow } from './event-types.js';
import { type Locale, TEXT } from './messages.js';
import { PICKER_SCRIPT } from './picker-script.js';
import type { Slot } from './slots.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f6f6f4}
main{max-width:40rem;margin:0 auto;padding:1rem}h1{font-size:1.6rem;margin:.5rem 0}
.organizer{color:#444;margin:0 0 1rem}.intro{white-space:pre-line}
fieldset{border:1px solid #bbb;border-radius:.5rem;margin:0 0 1rem;padding:.75rem}
legend{font-weight:600;padding:0 .25rem}.times{display:flex;flex-wrap:wrap;gap:.5rem}
.times input{position:absolute;opacity:0;width:1px;height:1px}
.times label{display:inline-block;min-width:5.5rem;text-align:center;padding:.6rem .8rem;border:1px solid #0b5394;
border-radius:.4rem;color:#0b5394;background:#fff;cursor:pointer}
.times input:checked+label{background:#0b5394;color:#fff}
.times input:focus-visible+label,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,a:focus-visible{outline:3px solid #b45309;outline-offset:2px}
label.field{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=email],input[type=tel],select,textarea{width:100%;padding:.6rem;border:1px solid #767676;border-radius:.4rem;font:inherit;background:#fff}
button{font:inherit;padding:.7rem 1.4rem;border:0;border-radius:.4rem;background:#0b5394;color:#fff;cursor:pointer;margin-top:1rem}
.tz{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}.tz div{flex:1 1 14rem}.tz button{margin:0}
.error{border-left:4px solid #b00020;background:#fdecee;padding:.5rem .75rem}a{color:#0b5394}
[hidden]{display:none!important}button:disabled{background:#767676;color:#fff;cursor:default}
.month-head{display:flex;align-items:center;justify-content:space-between;gap:.5rem}
.month-head h3{margin:0;font-size:1.1rem}.month-head button{margin:0;padding:.4rem .9rem;font-size:1.2rem}
.month{width:100%;border-collapse:collapse;table-layout:fixed;margin:.5rem 0}
.month th{font-size:.85rem;font-weight:600;color:#444;padding:.25rem 0}.month td{padding:2px}
.month abbr{text-decoration:none}
.month button{width:100%;min-height:2.75rem;margin:0;padding:0;border:1px solid #f6f6f4;border-radius:.4rem;background:#f6f6f4;color:#595959}
.month button.free{background:#fff;color:#0b5394;border-color:#0b5394;font-weight:700}
.month button[aria-pressed=true]{background:#0b5394;color:#fff}.month button[aria-disabled=true]{cursor:default}
.status{color:#444;min-height:1.5em;margin:.25rem 0}`;

/** Everything the booking page shows. */
export interface PageModel {
  readonly locale: Locale;
  readonly title: string;
  readonly intro: string | null;
  readonly organizer: string;
  readonly path: string;
  readonly zone: string;
  readonly zones: readonly string[];
  readonly eventTypes: readonly EventTypeRow[];
  readonly eventType: EventTypeRow;
  readonly slots: readonly Slot[];
  readonly nextFrom: string | null;
  /** The end of the link's booking window (ISO): the month grid goes no further. */
  readonly until: string;
  readonly phoneRequired: boolean;
  readonly error?: string;
  readonly values?: Readonly<Record<string, string>>;
}

function layout(locale: Locale, title: string, nonce: string, body: string, script = ''): string {
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<meta name="robots" content="noindex"><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main>${script ? `<script nonce="${nonce}">${script}</script>` : ''}</body></html>`;
}

/**
 * The month grid's frame, hidden until the page's script fills it from the link's JSON API (without
 * JavaScript the day list after it is the page). Weeks start on Monday.
 */
function picker(model: PageModel): string {
  const text = TEXT[model.locale];
  const short = Info.weekdays('short', { locale: model.locale });
  const long = Info.weekdays('long', { locale: model.locale });
  const head = short
    .map(
      (name, day) =>
        `<th scope="col"><abbr title="${escapeHtml(long[day] ?? name)}">${escapeHtml(name)}</abbr></th>`,
    )
    .join('');
  const texts = {
    freeOne: text.freeOne,
    freeMany: text.freeMany,
    noneFree: text.noneFree,
    monthEmpty: text.monthEmpty,
    pickDay: text.pickDay,
    loading: text.loading,
    loadFailed: text.loadFailed,
  };
  return `<div id="picker" hidden data-path="${escapeHtml(model.path)}" data-until="${escapeHtml(model.until)}" data-texts="${escapeHtml(JSON.stringify(texts))}">
<div class="month-head"><button type="button" id="prev-month" aria-label="${text.prevMonth}">‹</button><h3 id="month-label" aria-live="polite"></h3><button type="button" id="next-month" aria-label="${text.nextMonth}">›</button></div>
<table class="month" aria-labelledby="month-label"><thead><tr>${head}</tr></thead><tbody></tbody></table>
<p id="picker-status" class="status" role="status"></p>
<fieldset class="day"><legend id="day-label"></legend><div id="day-times" class="times"></div></fieldset></div>`;
}

/** The booking page: title, intro, organizer, zone picker, free slots by day, the form. */
export function renderBookingPage(model: PageModel, nonce: string): string {
  const text = TEXT[model.locale];
  const values = model.values ?? {};
  const days = new Map<string, Slot[]>();
  for (const slot of model.slots) {
    const day = DateTime.fromJSDate(slot.start, { zone: model.zone }).toISODate() as string;
    days.set(day, [...(days.get(day) ?? []), slot]);
  }
  let index = 0;
  const dayBlocks = [...days.entries()]
    .map(([day, slots]) => {
      const heading = DateTime.fromISO(day, { zone: model.zone })
        .setLocale(model.locale)
        .toLocaleString(DateTime.DATE_HUGE);
      const times = slots
        .map((slot) => {
          index += 1;
          const value = slot.start.toISOString();
          const time = DateTime.fromJSDate(slot.start, { zone: model.zone })
            .setLocale(model.locale)
            .toLocaleString(DateTime.TIME_SIMPLE);
          const checked = values.start === value ? ' checked' : '';
          return `<input type="radio" name="start" id="slot-${index}" value="${value}" required${checked}><label for="slot-${index}">${escapeHtml(time)}</label>`;
        })
        .join('');
      return `<fieldset class="day"><legend>${escapeHtml(heading)}</legend><div class="times">${times}</div></fieldset>`;
    })
    .join('');
  const zoneOptions = model.zones
    .map((zone) => `<option${zone === model.zone ? ' selected' : ''}>${escapeHtml(zone)}</option>`)
    .join('');
  const typeSelect =
    model.eventTypes.length > 1
      ? `<div><label class="field" for="type">${text.meeting}</label><select id="type" name="type">${model.eventTypes
          .map(
            (type) =>
              `<option value="${type.id}"${type.id === model.eventType.id ? ' selected' : ''}>${escapeHtml(type.name)} (${type.duration_minutes} min)</option>`,
          )
          .join('')}</select></div>`
      : '';
  const later = model.nextFrom
    ? `<p><a href="${escapeHtml(`${model.path}?tz=${encodeURIComponent(model.zone)}&type=${model.eventType.id}&from=${encodeURIComponent(model.nextFrom)}`)}">${text.later}</a></p>`
    : '';
  const field = (name: string, label: string, type: string, extra: string) =>
    `<label class="field" for="${name}">${label}</label><input type="${type}" id="${name}" name="${name}" value="${escapeHtml(values[name] ?? '')}" ${extra}>`;
  const body = `<h1>${escapeHtml(model.title)}</h1>
<p class="organizer">${escapeHtml(model.organizer)} · ${escapeHtml(model.eventType.name)}, ${model.eventType.duration_minutes} min</p>
${model.intro ? `<p class="intro">${escapeHtml(model.intro)}</p>` : ''}
${model.error ? `<p class="error" role="alert">${escapeHtml(model.error)}</p>` : ''}
<form method="get" class="tz" action="${escapeHtml(model.path)}"><div><label class="field" for="tz">${text.showIn}</label>
<select id="tz" name="tz">${zoneOptions}</select></div>${typeSelect}<button type="submit">${text.change}</button></form>
<form method="post" id="book" action="${escapeHtml(`${model.path}/bookings`)}">
<input type="hidden" name="timezone" value="${escapeHtml(model.zone)}">
<input type="hidden" name="event_type_id" value="${escapeHtml(model.eventType.id)}">
<h2>${text.pick}</h2>
${picker(model)}
<div id="slot-list">${dayBlocks || `<p>${text.noSlots}</p>`}${later}</div>
${field('name', text.name, 'text', 'required maxlength="160" autocomplete="name"')}
${field('email', text.email, 'email', 'required maxlength="320" autocomplete="email"')}
${model.phoneRequired ? field('phone', text.phone, 'tel', 'required maxlength="40" autocomplete="tel"') : ''}
<label class="field" for="note">${text.note}</label><textarea id="note" name="note" rows="3" maxlength="2000">${escapeHtml(values.note ?? '')}</textarea>
<button type="submit">${text.book}</button></form>`;
  return layout(model.locale, model.title, nonce, body, PICKER_SCRIPT).replace(
    `<html lang="${model.locale}">`,
    `<html lang="${model.locale}" data-tz="${escapeHtml(model.zone)}">`,
  );
}

/** The confirmation page after a booking. */
export function renderConfirmation(locale: Locale, booking: BookingRow, nonce: string): string {
  const text = TEXT[locale];
  const zone = booking.booker_timezone;
  const start = DateTime.fromJSDate(booking.start_at, { zone }).setLocale(locale);
  const end = DateTime.fromJSDate(booking.end_at, { zone }).setLocale(locale);
  const body = `<h1>${text.confirmed}</h1><p role="status">${escapeHtml(booking.title)}</p>
<p><strong>${escapeHtml(start.toLocaleString(DateTime.DATE_HUGE))}, ${escapeHtml(start.toLocaleString(DateTime.TIME_SIMPLE))} – ${escapeHtml(end.toLocaleString(DateTime.TIME_SIMPLE))}</strong> (${escapeHtml(zone)})</p>
<p>${text.confirmedLead} ${escapeHtml(booking.booker_email)}.</p>`;
  return layout(locale, text.confirmed, nonce, body);
}

/** The page of a link that cannot be booked (unknown, wrong secret, revoked, booked, expired). */
export function renderUnavailable(locale: Locale, nonce: string): string {
  const text = TEXT[locale];
  return layout(locale, text.unavailable, nonce, `<h1>${text.unavailable}</h1>`);
}

/** A page that refuses what was asked (a 400), with the reason and the way back to the booking page. */
export function renderProblem(locale: Locale, message: string, path: string, nonce: string): string {
  const text = TEXT[locale];
  return layout(
    locale,
    message,
    nonce,
    `<h1>${escapeHtml(message)}</h1><p><a href="${escapeHtml(path)}">${text.back}</a></p>`,
  );
}
