/* Small helpers shared by the pages: DOM building (text only, never HTML strings), number formats, JSON calls. */
"use strict";

const gp = (() => {
  /** Build an element: h("td", {class: "num"}, "text", childNode, [more]). Strings become text nodes. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = value;
      else if (key === "text") el.textContent = value;
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  /* The page's language (the server chose it: ?lang=, the switch's cookie, Accept-Language) and its strings. */
  const locale = document.documentElement.lang || "en";
  const stringsEl = document.getElementById("strings");
  const strings = stringsEl ? JSON.parse(stringsEl.textContent) : {};

  /** The page's text for `key`, with `{name}` slots filled; a key missing from the catalogue shows as itself. */
  function t(key, values) {
    const text = strings[key] ?? key;
    return text.replace(/\{(\w+)\}/g, (slot, name) => (values && name in values ? String(values[name]) : slot));
  }

  /* Money formats per currency (Intl, the reader's locale), made once each: whole units and cents. */
  const moneyFormats = new Map();
  function moneyFormat(currency) {
    if (!moneyFormats.has(currency)) {
      moneyFormats.set(currency, {
        whole: new Intl.NumberFormat(locale, { style: "currency", currency, maximumFractionDigits: 0 }),
        cents: new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: 2,
          maximumFractionDigits: 2 }),
      });
    }
    return moneyFormats.get(currency);
  }
  let shownCurrency = "USD";
  /** Money from now on in `code` (a plan's `currency`): the plan's figures are already converted by the API. */
  function setCurrency(code) {
    shownCurrency = code || "USD";
  }
  /** The currency `usd()` writes in (the shown plan's). */
  const currency = () => shownCurrency;
  const numberFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  const dateFormat = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

  /** An ISO date (or timestamp) as the reader writes dates; text that is not a date is shown as it is. */
  function date(iso) {
    if (!iso) return "–";
    const when = Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
    return Number.isNaN(when) ? iso : dateFormat.format(new Date(when));
  }

  const monthFormat = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", timeZone: "UTC" });
  const dateTimeFormat = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", timeZone: "UTC" });

  /** A period's label as the reader writes it: "2026-12" a month (déc. 2026, 2026年12月), "2027-01-04" a date (a
   *  week's or a day's period); any other label ("start") is shown as it is. */
  function period(label) {
    if (typeof label !== "string") return label ?? "–";
    if (/^\d{4}-\d{2}$/.test(label)) return monthFormat.format(new Date(`${label}-01T00:00:00Z`));
    return /^\d{4}-\d{2}-\d{2}$/.test(label) ? date(label) : label;
  }

  /** An ISO timestamp as the reader writes a date and time, in UTC (the page says so beside it). */
  function dateTime(iso) {
    if (!iso) return "–";
    const when = Date.parse(iso);
    return Number.isNaN(when) ? iso : dateTimeFormat.format(new Date(when));
  }

  /** Money in `code` (default: the shown plan's currency): whole units from 100 up, cents below (hourly prices,
   *  small totals). The name is historical: the API's `*_usd` fields are in the plan's currency. */
  function money(value, code) {
    if (value === null || value === undefined) return "–";
    const format = moneyFormat(code || shownCurrency);
    return Math.abs(value) >= 100 ? format.whole.format(value) : format.cents.format(value);
  }
  const usd = (value) => money(value);
  /** Money as money() rounds it, without the currency's sign: for a long table whose caption names the currency
   *  once (a column of "1 234 $US" takes a third more room than "1 234"). */
  function amount(value) {
    if (value === null || value === undefined) return "–";
    return num(value, Math.abs(value) >= 100 ? 0 : 2);
  }
  /** A price per unit (kWh, hour) to a tenth of a cent: 0.175 stays 0.175, not 0.18. */
  function rateMoney(value, code) {
    if (value === null || value === undefined) return "–";
    return value.toLocaleString(locale, { style: "currency", currency: code || shownCurrency, minimumFractionDigits: 2,
      maximumFractionDigits: 4 });
  }
  /** Money in whole units whatever its size (the recommendation's savings, as the API writes them). */
  function wholeMoney(value, code) {
    return value === null || value === undefined ? "–" : moneyFormat(code || shownCurrency).whole.format(value);
  }
  function num(value, digits) {
    if (value === null || value === undefined) return "–";
    return digits === undefined ? numberFormat.format(value)
      : value.toLocaleString(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }
  function pct(value) {
    return value === null || value === undefined ? "–"
      : value.toLocaleString(locale, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
  }

  /** ISO date plus `days` (fractional days are cut). */
  function addDays(isoDate, days) {
    const d = new Date(`${isoDate}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() + Math.floor(days));
    return d.toISOString().slice(0, 10);
  }

  /** Whole days between an ISO date or timestamp and now. */
  function ageDays(iso) {
    const then = Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
    return Number.isNaN(then) ? null : Math.floor((Date.now() - then) / 86400000);
  }

  /** fetch + JSON; never throws for HTTP errors: {ok, status, body}. Network failures become status 0. */
  async function call(url, options) {
    let response;
    try {
      response = await fetch(url, options);
    } catch (error) {
      return { ok: false, status: 0, body: { title: "Network error", detail: String(error) } };
    }
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = { title: `HTTP ${response.status}`, detail: "the answer was not JSON" };
    }
    return { ok: response.ok, status: response.status, body };
  }

  /** A chart's address in the page's language: `path` (an API `.svg` route) with `params` and `lang`, so the chart
   *  draws its text, numbers and dates as the page writes them (the API's charts are English without `lang`). */
  function chartUrl(path, params) {
    return `${path}?${new URLSearchParams({ ...params, lang: locale })}`;
  }

  /**
   * A table in a horizontally scrolling wrapper (wide tables never widen the page).
   * columns: [{label, num?, wrap?, name?}] (num: right-aligned figures; wrap: free text that may wrap; name: a short
   * name that may wrap between its words, e.g. a GPU type), rows: [[cell, ...]]; a cell is a string/number or a Node.
   * `how.dense`: a long table set tighter (months, cash flows), so its many columns fit a desktop's result column;
   * `how.stack`: on a phone each row is a block of "column: value" lines instead of a row wider than the screen.
   */
  function table(caption, columns, rows, footer, how = {}) {
    const kind = (c) => (c.num ? "num" : c.wrap ? "wrap" : c.name ? "name" : null);
    const head = h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col", class: kind(c) }, c.label))));
    const cells = (row) => row.map((cell, i) => h(i === 0 ? "th" : "td",
      { scope: i === 0 ? "row" : null, class: kind(columns[i]), "data-label": how.stack && i ? t("r.stack_label", { label: columns[i].label }) : null },
      cell));
    const body = h("tbody", {}, rows.map((row) => h("tr", {}, cells(row))));
    // footer: one row, or several ([[...], [...]])
    const feet = !footer ? [] : Array.isArray(footer[0]) ? footer : [footer];
    const foot = feet.length ? h("tfoot", {}, feet.map((row) => h("tr", {}, cells(row)))) : null;
    const style = ["table-wrap", how.dense ? "dense" : null, how.stack ? "stack" : null].filter(Boolean).join(" ");
    return h("div", { class: style, tabindex: "0", role: "region", "aria-label": caption },
      h("table", {}, caption ? h("caption", { class: "visually-hidden" }, caption) : null, head, body, foot));
  }

  /** The language switch: the choice is kept in a cookie (a year) and the page reloads in that language. */
  function languageSwitch() {
    const select = document.getElementById("lang");
    const listEl = document.getElementById("locales");
    if (!select || !listEl) return;
    const locales = JSON.parse(listEl.textContent);
    select.replaceChildren(...Object.entries(locales).map(([code, name]) => h("option", { value: code, lang: code }, name)));
    select.value = locale;
    select.addEventListener("change", () => {
      document.cookie = `gpuplan_lang=${encodeURIComponent(select.value)}; path=/; max-age=31536000; samesite=lax`;
      const url = new URL(location.href);
      url.searchParams.delete("lang");
      location.assign(url);
    });
  }
  languageSwitch();

  return { h, t, has: (key) => key in strings, locale, usd, money, amount, rateMoney, wholeMoney, currency, num, pct, date,
    period, dateTime, addDays,
    ageDays, call, table, setCurrency, chartUrl };
})();
