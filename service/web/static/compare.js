/* The compare page: pick plans (the lab's recent ones), then GET /v1/plans/compare?ids=... side by side. */
"use strict";

(() => {
  const { h, t, money, num, date, call, table, locale, chartUrl } = gp;
  const { recommendation, value, productName, buyItem } = gpText;
  const $ = (id) => document.getElementById(id);
  const MAX = 6;
  // profile path -> the planning form's label for it, in the page's language (service/web/form_schema.py)
  const labelsEl = document.getElementById("field-labels");
  const FIELD_LABELS = labelsEl ? JSON.parse(labelsEl.textContent) : {};

  function idsInAddress() {
    const raw = new URLSearchParams(location.search).get("ids") || "";
    return raw.split(",").map((s) => s.trim()).filter(Boolean);
  }

  async function loadChoices(chosen) {
    const answer = await call(`/v1/plans?limit=20`);
    const items = answer.ok ? answer.body.items : [];
    for (const id of chosen) if (!items.some((p) => p.id === id)) items.unshift({ id, recommendation: "" });
    $("plan-choices").replaceChildren(...items.map((p) => h("div", { class: "field check" },
      h("input", { type: "checkbox", id: `pick-${p.id}`, name: "ids", value: p.id, checked: chosen.includes(p.id) }),
      // the list's sentence is the API's (English): other pages name the plan by its id until it is compared
      h("label", { for: `pick-${p.id}` }, p.created_at ? `${date(p.created_at)} · ${money(p.total_cost_usd, p.currency)} · `
        : "", locale === "en" && p.recommendation ? p.recommendation : t("c.plan_short", { id: p.id.slice(0, 8) })))));
    if (!items.length) $("status").textContent = t("c.no_plans");
  }

  const label = (i) => t("c.plan_n", { n: i + 1 });

  /** Each plan's money in its own currency; `full` maps ids to whole plans (for the recommendation's sentence). */
  function summary(body, full) {
    const plans = body.plans;
    const usd = (value, p) => money(value, p.currency);
    const mixed = new Set(plans.map((p) => p.currency)).size > 1;
    const columns = [{ label: "" }, ...plans.map((p, i) => ({ label: label(i), wrap: true }))]; // sentences wrap
    const be = (p) => (p.break_even_days === null ? t("r.never")
      : `${t("r.day", { n: num(p.break_even_days, 0) })} (${date(p.break_even_date)})`);
    const bought = (p) => (p.purchases.length ? p.purchases.map(purchase).join("; ") : t("c.nothing"));
    const rows = [
      [t("r.recommendation"), ...plans.map((p) => (full.has(p.id) ? recommendation(full.get(p.id)) : p.recommendation))],
      ...(mixed ? [[t("c.currency"), ...plans.map((p) => p.currency)]] : []),
      [t("r.plan"), ...plans.map((p) => h(p.id === body.cheapest_id && !mixed ? "strong" : "span", {},
        usd(p.total_cost_usd, p)))],
      ...(mixed ? [[t("c.in_currency", { currency: body.currency }), ...plans.map((p) => h(p.id === body.cheapest_id
        ? "strong" : "span", {}, money(p.total_in_common, body.currency)))]] : []),
      [t("r.purchases"), ...plans.map((p) => usd(p.costs.capex_usd, p))],
      [t("r.electricity"), ...plans.map((p) => usd(p.costs.electricity_usd, p))],
      [t("r.cloud"), ...plans.map((p) => usd(p.costs.cloud_usd, p))],
      [t("r.resale"), ...plans.map((p) => usd(p.costs.resale_credit_usd, p))],
      [t("r.cloud_only"), ...plans.map((p) => usd(p.cloud_only_total_usd, p))],
      [t("r.buy_only"), ...plans.map((p) => usd(p.buy_only_total_usd, p))],
      [t("r.break_even"), ...plans.map(be)],
      [t("c.bought"), ...plans.map(bought)],
      [t("r.cloud_h"), ...plans.map((p) => num(p.cloud_instance_hours, 1))],
      [t("c.horizon"), ...plans.map((p) => `${date(p.horizon_start)} + ${p.horizon_months}`)],
      [t("c.open"), ...plans.map((p) => h("a", { href: `/?plan=${encodeURIComponent(p.id)}` }, p.id.slice(0, 8)))],
    ];
    return h("section", { class: "card", id: "compare-summary", "aria-labelledby": "compare-summary-title" },
      h("h2", { id: "compare-summary-title" }, t("c.side_by_side")), table(t("c.side_by_side"), columns, rows),
      mixed ? conversionNote(body) : null);
  }

  /** One thing a plan buys or reserves (cards and machines, the hosts they go in, reserved instances). */
  function purchase(b) {
    const count = num(b.count, 0);
    if (b.kind === "host") return t("c.host_item", { count, name: productName(b.name) });
    if (b.kind === "commitment") {
      return t("c.commitment_item", { count, provider: b.provider, name: b.name, months: num(b.term_months, 0) });
    }
    return buyItem(b, "");
  }

  /** Plans in different currencies: which rates put them in one, of which day (the API's `conversions`). */
  function conversionNote(body) {
    const index = new Map(body.plans.map((p, i) => [p.id, i]));
    const rates = body.conversions.map((c) => t("c.rate", { plan: label(index.get(c.plan_id)), from: c.from_currency,
      to: c.to_currency, rate: num(c.rate, 4), date: date(c.rates_as_of) }));
    const currencies = [...new Set(body.plans.map((p) => p.currency))];
    return h("p", { class: "muted small", id: "compare-currency-note" }, t("c.conversion_note", {
      currencies: new Intl.ListFormat(locale).format(currencies), currency: body.currency,
      rates: rates.join("; ") }));
  }

  /** An input by the form's own label where the form has one (its path as a tooltip), else its path. */
  const field = (path) => (FIELD_LABELS[path] ? h("span", { title: path, "data-path": path }, FIELD_LABELS[path])
    : h("code", {}, path));

  function differences(body) {
    // a list of named items (price quotes) by its names, as the purchases are named; other structures as JSON
    const named = (v) => Array.isArray(v) && v.length > 0 && v.every((item) => item && typeof item.name === "string");
    const shown = (v) => (v === null || v === undefined ? "–" : named(v) ? v.map((item) => productName(item.name)).join("; ")
      : typeof v === "object" ? JSON.stringify(v) : typeof v === "number" ? num(v, v % 1 ? 3 : 0) : String(v));
    const content = body.differing_inputs.length
      ? table(t("c.inputs"), [{ label: t("c.field") }, ...body.plans.map((p, i) => ({ label: label(i), wrap: true }))],
        body.differing_inputs.map((d) => [field(d.field), ...d.values.map(shown)]))
      : h("p", {}, t("c.same_inputs"));
    return h("section", { class: "card", id: "compare-inputs", "aria-labelledby": "compare-inputs-title" },
      h("h2", { id: "compare-inputs-title" }, t("c.inputs")), content);
  }

  function chart(ids, body) {
    const src = chartUrl("/v1/plans/compare.svg", { ids: ids.join(",") });
    const alt = body.plans.map((p, i) => `${label(i)}: ${money(p.total_cost_usd, p.currency)}`).join(", ");
    return h("section", { class: "card", id: "compare-chart", "aria-labelledby": "compare-chart-title" },
      h("h2", { id: "compare-chart-title" }, t("r.cumulative_cost")),
      h("figure", {}, h("img", { id: "comparison-chart", src, alt: `${t("r.cumulative_cost")}: ${alt}`, width: 800,
        height: 420 }), h("figcaption", {}, h("a", { href: src }, t("r.chart_svg")))));
  }

  async function show(ids) {
    $("status").textContent = t("c.loading");
    const [answer, ...full] = await Promise.all([call(`/v1/plans/compare?ids=${ids.map(encodeURIComponent).join(",")}`),
      ...ids.map((id) => call(`/v1/plans/${encodeURIComponent(id)}`))]);
    const out = $("comparison");
    if (!answer.ok) {
      $("status").textContent = answer.body?.detail || answer.body?.title || t("s.failed");
      out.hidden = true;
      return;
    }
    const plans = new Map(full.filter((f) => f.ok).map((f) => [f.body.id, f.body]));
    out.replaceChildren(summary(answer.body, plans), differences(answer.body),
      chart(ids, answer.body));
    out.hidden = false;
    $("status").textContent = t("c.ready", { n: ids.length });
  }

  $("compare-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const ids = [...document.querySelectorAll('input[name="ids"]:checked')].map((el) => el.value);
    if (ids.length < 2 || ids.length > MAX) {
      $("status").textContent = t("c.pick_count", { max: MAX });
      return;
    }
    history.replaceState(null, "", `?ids=${ids.map(encodeURIComponent).join(",")}`);
    show(ids);
  });

  const chosen = idsInAddress();
  loadChoices(chosen);
  if (chosen.length >= 2) show(chosen);
})();
