/* The lab's own prices on the planning form (issue 17): vendor quotes for hardware, negotiated cloud rates and
 * reserved-instance (commitment) quotes, one row per quote, each in its own currency. The columns are the quote's
 * fields the API has (the page is told them: service/web/form_schema.py); a field the table does not show is kept
 * with its row, so a stored profile comes back whole. */
"use strict";

(() => {
  const { h, t } = gp;
  const $ = (id) => document.getElementById(id);
  const FIELDS = JSON.parse($("quote-fields").textContent);
  const CURRENCIES = ["USD", "EUR", "GBP", "CNY", "JPY", "INR", "CHF", "CAD", "AUD"];
  const text = (key, extra) => ({ key, type: "text", ...extra });
  const number = (key, extra) => ({ key, type: "number", ...extra });
  const choice = (key, values, extra) => ({ key, type: "select", values, ...extra });
  const check = (key) => ({ key, type: "check" });
  const currency = choice("currency", CURRENCIES);
  const common = [text("as_of", { input: "date" }), text("source")];
  // the columns each kind may have, in the order shown (the API's own fields only are drawn)
  const COLUMNS = {
    owned: [text("name"), text("gpu", { list: "gpu-names" }), number("gpus_per_unit", { step: "1" }),
      number("unit_price_usd"), currency, choice("condition", ["new", "used"]), check("includes_host"),
      choice("kind", ["", "desktop", "workstation", "server"]), number("watts"), number("idle_watts"), ...common],
    cloud: [text("provider"), text("name"), text("gpu", { list: "gpu-names" }), number("gpu_count", { step: "1" }),
      number("usd_per_hour"), currency, text("region"), choice("pricing", ["on_demand", "spot"]),
      number("max_instances", { step: "1" }), check("multi_node"), check("verified"), ...common],
    commitments: [text("provider"), text("name"), text("gpu", { list: "gpu-names" }),
      number("gpu_count", { step: "1" }), number("usd_per_hour"), number("term_months", { step: "1" }), currency,
      choice("payment", ["no_upfront", "partial_upfront", "all_upfront"]), number("upfront_usd"), text("region"),
      number("max_instances", { step: "1" }), ...common],
  };
  const columns = (kind) => COLUMNS[kind].filter((c) => FIELDS[kind].includes(c.key));
  const WIDE = new Set(["name", "source"]);  // free text: a quote's whole width
  const fallback = (kind, key) => gpForm.DEFAULTS[`prices.${kind}[].${key}`];
  const label = (c) => t(`q.col.${c.key}`);
  const option = (c, value) => (c.key === "currency" ? value : c.key === "kind" ? t(`api.host_kind.${value || "auto"}`)
    : t(`api.${c.key === "payment" ? "payment" : c.key === "condition" ? "condition" : "pricing"}.${value}`));

  function cell(kind, c, value, n) {
    const name = `${label(c)} (${t(`q.${kind}`)} ${n})`;
    const base = fallback(kind, c.key);
    if (c.type === "check") {
      return h("input", { type: "checkbox", "data-key": c.key, "aria-label": name, checked: value ?? base ?? false });
    }
    if (c.type === "select") {
      const chosen = value ?? base ?? c.values[0];
      const select = h("select", { "data-key": c.key, "aria-label": name },
        c.values.map((v) => h("option", { value: v }, option(c, v))));
      select.value = chosen;
      return select;
    }
    const shown = value === undefined || value === null || value === base ? "" : String(value);
    return h("input", { type: c.type === "number" ? "number" : c.input || "text", step: c.step || "any", min: "0",
      inputmode: c.type === "number" ? "decimal" : null, list: c.list || null, "data-key": c.key, "aria-label": name,
      value: shown, placeholder: base === null || base === undefined || c.type !== "number" ? null : String(base) });
  }

  function addRow(kind, item) {
    const body = $(`q-${kind}`).querySelector("tbody");
    const rest = { ...(item || {}) };
    const n = body.children.length + 1;
    // each value under its column's name (gpuplan.css lays a quote out as a block of fields: the form's column is
    // too narrow for a row of a dozen inputs, and a name cut to three letters cannot be read)
    const row = h("tr", {}, columns(kind).map((c) => {
      const value = rest[c.key];
      delete rest[c.key];
      return h("td", { "data-label": label(c), class: WIDE.has(c.key) ? "quote-wide" : null }, cell(kind, c, value, n));
    }), h("td", { class: "quote-wide quote-remove" }, h("button", { type: "button", class: "link",
      "aria-label": t("q.remove_n", { n }) }, t("q.remove"))));
    row.dataset.extra = JSON.stringify(rest);
    row.querySelector("button").addEventListener("click", () => row.remove());
    body.append(row);
    return row;
  }

  function table(kind) {
    const wrap = $(`q-${kind}`);
    wrap.replaceChildren(h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": `q-${kind}-title` },
      h("table", { class: "quote-table" }, h("thead", {}, h("tr", {}, columns(kind).map((c) => h("th", { scope: "col" },
        label(c))), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("q.remove"))))), h("tbody", {}))));
  }

  /** One row's quote: the typed values (defaults left out) over the fields the table does not show. */
  function readRow(kind, row, index) {
    const quote = JSON.parse(row.dataset.extra || "{}");
    let typed = false;
    for (const el of row.querySelectorAll("[data-key]")) {
      const key = el.dataset.key;
      const base = fallback(kind, key);
      if (el.type === "checkbox") {
        if (el.checked !== (base ?? false)) quote[key] = el.checked;
      } else if (el.tagName === "SELECT") {
        if (el.value !== base && el.value !== "") quote[key] = el.value;  // "" is a choice left to the API
      } else if (el.type === "number") {
        if (el.validity.badInput) throw new gpForm.FieldError(`prices.${kind}[${index}].${key}`, t("f.enter_number"));
        if (el.value.trim() !== "") { quote[key] = Number(el.value); typed = true; }
      } else if (el.value.trim() !== "") {
        quote[key] = el.value.trim();
        typed = true;
      }
    }
    return typed || Object.keys(quote).length ? quote : null;
  }

  for (const kind of Object.keys(COLUMNS)) {
    table(kind);
    $(`q-${kind}-add`).addEventListener("click", () => addRow(kind).querySelector("input, select").focus());
  }

  gpForm.fieldSection([{ id: "q_mode", path: "prices.mode", kind: "select" }]);
  gpForm.extend({
    fill(rest, take) {
      for (const kind of Object.keys(COLUMNS)) {
        table(kind);
        for (const item of take(rest, `prices.${kind}`) || []) addRow(kind, item);
      }
    },
    read(profile) {
      for (const kind of Object.keys(COLUMNS)) {
        const quotes = [...$(`q-${kind}`).querySelectorAll("tbody tr")].map((row, i) => readRow(kind, row, i))
          .filter(Boolean);
        if (quotes.length) (profile.prices ||= {})[kind] = quotes;
      }
    },
  });
})();
