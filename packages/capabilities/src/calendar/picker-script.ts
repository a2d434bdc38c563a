/**
 * The booking page's one inline script (progressive enhancement; the page works without it).
 *
 * It replaces the server-rendered day list (`#slot-list`) with a month grid (`#picker`) fed by the
 * link's own JSON API (`{path}/slots?from&to&tz&event_type_id`, following `next_from` for a month
 * the link's `slot_limit` pages). Times are shown in the visitor's zone (from `?tz=`, else the
 * browser's), changeable in the zone select without a reload. Days with free times are marked; the
 * grid has one tab stop (roving tabindex): arrow keys move a day or a week, Home/End to the week's
 * ends, PageUp/PageDown a month; Enter, Space or a click picks a day, whose times become the form's
 * `start` radio buttons, and a picked time stays picked when they are drawn again. A failed first
 * load leaves the server-rendered list in place. Also stops a form from being sent twice.
 *
 * Plain browser JavaScript, no interpolation: everything it needs comes from `data-*` attributes the
 * server escaped, so it runs under the page's nonce-only CSP (with `connect-src 'self'` for fetch).
 */
export const PICKER_SCRIPT = `(function () {
  'use strict';
  var form = document.getElementById('book');
  if (form) form.addEventListener('submit', function () {
    var button = form.querySelector('button[type=submit]');
    if (button) button.disabled = true;
  });
  var root = document.getElementById('picker');
  if (!root || !form || !window.fetch || !window.Intl || !window.URLSearchParams) return;

  var texts = JSON.parse(root.dataset.texts);
  var lang = document.documentElement.lang;
  var zoneSelect = document.getElementById('tz');
  var typeSelect = document.getElementById('type');
  var zoneField = form.querySelector('input[name=timezone]');
  var typeField = form.querySelector('input[name=event_type_id]');
  var fallback = document.getElementById('slot-list');
  var grid = root.querySelector('tbody');
  var monthLabel = document.getElementById('month-label');
  var prev = document.getElementById('prev-month');
  var next = document.getElementById('next-month');
  var status = document.getElementById('picker-status');
  var dayLabel = document.getElementById('day-label');
  var times = document.getElementById('day-times');
  var chosen = fallback && fallback.querySelector('input[name=start]:checked');
  var wanted = chosen ? chosen.value : null; // the picked time: before a refused post, or since

  var zone = new URL(location.href).searchParams.get('tz');
  if (!zone) {
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { zone = null; }
  }
  try { new Intl.DateTimeFormat('en', { timeZone: zone || undefined }); } catch (e) { zone = null; }
  if (!zone) zone = zoneField.value;
  var month = null, days = {}, selected = null, focusDate = null, ticket = 0, loaded = false;

  function addDays(date, n) {
    var d = new Date(date + 'T00:00:00Z');
    d.setUTCDate(d.getUTCDate() + n);
    return d.toISOString().slice(0, 10);
  }
  function addMonths(m, n) {
    var d = new Date(Date.UTC(+m.slice(0, 4), +m.slice(5, 7) - 1 + n, 1));
    return d.toISOString().slice(0, 7);
  }
  function localDate(instant) {
    return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
      .format(instant);
  }
  function longDate(date) {
    return new Intl.DateTimeFormat(lang, { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' })
      .format(new Date(date + 'T00:00:00Z'));
  }
  function count(n) { return n === 1 ? texts.freeOne : texts.freeMany.replace('{n}', n); }
  var today, first, last;
  function bounds() {
    today = localDate(new Date());
    first = today.slice(0, 7);
    last = localDate(new Date(root.dataset.until)).slice(0, 7);
  }

  function useZone(value) {
    zone = value;
    zoneField.value = zone;
    if (!Array.prototype.some.call(zoneSelect.options, function (o) { return o.value === zone; })) {
      zoneSelect.add(new Option(zone, zone), 0);
    }
    zoneSelect.value = zone;
    bounds();
  }

  /** The free slots of month m by local date: the API pages by slot_limit, so follow next_from. */
  function fetchMonth(m) {
    var y = +m.slice(0, 4), mo = +m.slice(5, 7);
    // Every zone's local month lies within these UTC bounds (offsets run from -12 to +14 hours).
    var to = new Date(Date.UTC(y, mo, 1) + 12 * 3600e3).toISOString();
    var found = {};
    function page(from, left) {
      var query = new URLSearchParams({ from: from, to: to, tz: zone });
      if (typeField.value) query.set('event_type_id', typeField.value);
      return fetch(root.dataset.path + '/slots?' + query, { headers: { accept: 'application/json' } })
        .then(function (response) {
          if (!response.ok) throw new Error('slots ' + response.status);
          return response.json();
        })
        .then(function (body) {
          body.slots.forEach(function (slot) {
            if (slot.local_date.slice(0, 7) !== m) return;
            (found[slot.local_date] = found[slot.local_date] || []).push(slot);
          });
          return body.more && body.next_from && left > 0 ? page(body.next_from, left - 1) : found;
        });
    }
    return page(new Date(Date.UTC(y, mo - 1, 1) - 14 * 3600e3).toISOString(), 30);
  }

  /** Shows month m; seek moves on to the next month with free times (the first view). */
  function show(m, seek) {
    var mine = ++ticket;
    status.textContent = texts.loading;
    return fetchMonth(m).then(function (found) {
      if (mine !== ticket) return;
      if (seek && Object.keys(found).length === 0 && m < last) return show(addMonths(m, 1), true);
      month = m;
      days = found;
      var free = Object.keys(days).sort();
      if (!days[selected]) selected = wanted && days[localDate(new Date(wanted))] ? localDate(new Date(wanted)) : free[0] || null;
      if (!focusDate || focusDate.slice(0, 7) !== month) focusDate = selected || (month === first ? today : month + '-01');
      if (!loaded) {
        loaded = true;
        if (fallback) fallback.remove();
        root.hidden = false;
        var change = zoneSelect.form && zoneSelect.form.querySelector('button[type=submit]');
        if (change) change.hidden = true; // zone and meeting changes apply at once
      }
      render();
      status.textContent = free.length ? '' : texts.monthEmpty;
    }).catch(function () {
      if (mine === ticket) status.textContent = texts.loadFailed;
    });
  }

  function render() {
    var hadFocus = grid.contains(document.activeElement);
    var y = +month.slice(0, 4), mo = +month.slice(5, 7);
    monthLabel.textContent = new Intl.DateTimeFormat(lang, { timeZone: 'UTC', month: 'long', year: 'numeric' })
      .format(new Date(Date.UTC(y, mo - 1, 1)));
    var arrow = document.activeElement === prev || document.activeElement === next ? document.activeElement : null;
    prev.disabled = month <= first;
    next.disabled = month >= last;
    var offset = (new Date(Date.UTC(y, mo - 1, 1)).getUTCDay() + 6) % 7; // weeks start on Monday
    var length = new Date(Date.UTC(y, mo, 0)).getUTCDate();
    grid.textContent = '';
    var row = null;
    for (var cell = 0; cell < offset + length; cell += 1) {
      if (cell % 7 === 0) row = grid.insertRow();
      var td = row.insertCell();
      if (cell < offset) continue;
      var date = month + '-' + String(cell - offset + 1).padStart(2, '0');
      var slots = days[date] || [];
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = String(cell - offset + 1);
      button.dataset.date = date;
      button.className = slots.length ? 'free' : '';
      button.tabIndex = date === focusDate ? 0 : -1;
      button.setAttribute('aria-label', longDate(date) + ': ' + (slots.length ? count(slots.length) : texts.noneFree));
      button.setAttribute('aria-pressed', String(date === selected));
      if (!slots.length) button.setAttribute('aria-disabled', 'true');
      if (date === today) button.setAttribute('aria-current', 'date');
      td.appendChild(button);
    }
    while (row && row.cells.length < 7) row.insertCell();
    if (hadFocus) focusDay(focusDate);
    renderTimes();
    // A month button that just became disabled would drop the focus to the page: keep it in the grid.
    if (arrow && arrow.disabled) focusDay(focusDate);
  }

  function renderTimes() {
    times.textContent = '';
    var slots = days[selected] || [];
    dayLabel.textContent = selected ? longDate(selected) + ' · ' + count(slots.length) : texts.pickDay;
    var format = new Intl.DateTimeFormat(lang, { timeZone: zone, hour: 'numeric', minute: 'numeric' });
    slots.forEach(function (slot, index) {
      var input = document.createElement('input');
      input.type = 'radio';
      input.name = 'start';
      input.id = 'time-' + index;
      input.value = slot.start;
      input.required = true;
      input.checked = slot.start === wanted;
      var label = document.createElement('label');
      label.htmlFor = input.id;
      label.textContent = format.format(new Date(slot.start));
      times.appendChild(input);
      times.appendChild(label);
    });
  }

  function focusDay(date) {
    var button = grid.querySelector('button[data-date="' + date + '"]');
    if (!button) return;
    grid.querySelectorAll('button').forEach(function (b) { b.tabIndex = -1; });
    button.tabIndex = 0;
    button.focus();
  }

  function moveTo(date) {
    if (date.slice(0, 7) < first) date = today;
    if (date.slice(0, 7) > last) return;
    focusDate = date;
    if (date.slice(0, 7) !== month) return show(date.slice(0, 7)); // render() moves the focus
    ticket += 1; // back in the shown month: a month still loading is no longer wanted
    status.textContent = Object.keys(days).length ? '' : texts.monthEmpty;
    focusDay(date);
  }

  grid.addEventListener('click', function (event) {
    var button = event.target.closest('button');
    if (!button || !days[button.dataset.date]) return;
    selected = focusDate = button.dataset.date;
    grid.querySelectorAll('button').forEach(function (b) {
      b.setAttribute('aria-pressed', String(b === button));
      b.tabIndex = b === button ? 0 : -1;
    });
    renderTimes();
  });
  grid.addEventListener('keydown', function (event) {
    if (!(event.target.dataset && event.target.dataset.date)) return;
    // From where the focus is going, not where it is: keys pressed while a month loads add up.
    var date = focusDate || event.target.dataset.date;
    var weekday = (new Date(date + 'T00:00:00Z').getUTCDay() + 6) % 7;
    var steps = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7, Home: -weekday, End: 6 - weekday };
    if (event.key in steps) moveTo(addDays(date, steps[event.key]));
    else if (event.key === 'PageUp' || event.key === 'PageDown') {
      var m = addMonths(date.slice(0, 7), event.key === 'PageUp' ? -1 : 1);
      var length = new Date(Date.UTC(+m.slice(0, 4), +m.slice(5, 7), 0)).getUTCDate();
      moveTo(m + '-' + String(Math.min(+date.slice(8), length)).padStart(2, '0'));
    } else return;
    event.preventDefault();
  });
  // Times are drawn again when a month or zone finishes loading, also after the visitor picked one
  // (in the server's list or the grid) while it loaded: the pick stays checked if it is still shown.
  form.addEventListener('change', function (event) {
    if (event.target.name === 'start') wanted = event.target.value;
  });
  prev.addEventListener('click', function () { focusDate = null; show(addMonths(month, -1)); });
  next.addEventListener('click', function () { focusDate = null; show(addMonths(month, 1)); });
  zoneSelect.addEventListener('change', function () {
    useZone(zoneSelect.value);
    var url = new URL(root.dataset.path, location.href); // the page's path, also after a refused post
    url.searchParams.set('tz', zone);
    history.replaceState(null, '', url);
    show(month && month >= first ? month : first, !month);
  });
  if (typeSelect) typeSelect.addEventListener('change', function () {
    typeField.value = typeSelect.value;
    show(month || first, !month);
  });

  useZone(zone);
  show(wanted ? localDate(new Date(wanted)).slice(0, 7) : first, true);
})();`;
