/* The compare page: pick plans (the lab's recent ones), then GET /v1/plans/compare?ids=... side by side. */
"use strict";

(() => {
  const { h, t, money, num, pct, date, dateTime, call, table, locale, chartUrl } = gp;
  const { recommendation, value, productName, buyItem } = gpText;
  const $ = (id) => document.getElementById(id);
  const MAX = 6;
  // profile path -> the planning form's label for it, in the page's language (service/web/form_schema.py)
  const json = (id, fallback) => (document.getElementById(id) ? JSON.parse(document.getElementById(id).textContent)
    : fallback);
  const FIELD_LABELS = json("field-labels", {});
  // a choice's value -> the form's words for it, per path; the paths the form takes in percent
  const FIELD_VALUES = json("field-values", {});
  const PERCENT_FIELDS = new Set(json("percent-fields", []));

  function idsInAddress() {
    const raw = new URLSearchParams(location.search).get("ids") || "";
    return raw.split(",").map((s) => s.trim()).filter(Boolean);
  }

  async function loadChoices(chosen) {
    const answer = await call(`/v1/plans?limit=20`);
    const items = answer.ok ? answer.body.items : [];
    for (const id of chosen) if (!items.some((p) => p.id === id)) items.unshift({ id, recommendation: "" });
    // each plan by when it was made (to the minute), its total, its short id and what it recommends: plans made
    // from the same example the same day differ there
    const sentences = new Map();
    $("plan-choices").replaceChildren(...items.map((p) => {
      const sentence = h("span", { class: "choice-sentence" }, locale === "en" ? p.recommendation : "");
      sentences.set(p.id, sentence);
      return h("div", { class: "field check" },
        h("input", { type: "checkbox", id: `pick-${p.id}`, name: "ids", value: p.id, checked: chosen.includes(p.id) }),
        h("label", { for: `pick-${p.id}` }, h("span", { class: "choice-head" }, [p.created_at ? dateTime(p.created_at)
          : null, p.created_at ? money(p.total_cost_usd, p.currency) : null, t("c.plan_short", { id: p.id.slice(0, 8) })]
          .filter(Boolean).join(" · ")), sentence));
    }));
    if (!items.length) $("status").textContent = t("c.no_plans");
    // the list's sentence is the API's English: in another language each plan's own is composed from the plan,
    // read a few at a time
    if (locale !== "en") await inTurn(items.map((p) => async () => {
      const full = await call(`/v1/plans/${encodeURIComponent(p.id)}`);
      if (full.ok) sentences.get(p.id).textContent = recommendation(full.body);
    }), 4);
  }

  /** Run `jobs` (functions returning promises) with at most `width` at once. */
  async function inTurn(jobs, width) {
    const queue = [...jobs];
    await Promise.all(Array.from({ length: Math.min(width, queue.length) }, async () => {
      while (queue.length) await queue.shift()();
    }));
  }

  const label = (i) => t("c.plan_n", { n: i + 1 });

  /** Each plan's money in its own currency; `full` maps ids to whole plans (for the recommendation's sentence). */
  function summary(body, full) {
    const plans = body.plans;
    const usd = (value, p) => money(value, p.currency);
    const mixed = new Set(plans.map((p) => p.currency)).size > 1;
    const discounted = plans.some((p) => (full.get(p.id)?.discount_rate || 0) > 0);
    const columns = [{ label: "" }, ...plans.map((p, i) => ({ label: label(i), wrap: true }))]; // sentences wrap
    const be = (p) => (p.break_even_days === null ? t("r.never")
      : `${t("r.day", { n: num(p.break_even_days, 0) })} (${date(p.break_even_date)})`);
    const bought = (p) => (p.purchases.length ? p.purchases.map(purchase).join("; ") : t("c.nothing"));
    const rows = [
      [t("r.recommendation"), ...plans.map((p) => (full.has(p.id) ? recommendation(full.get(p.id)) : p.recommendation))],
      ...(mixed ? [[t("c.currency"), ...plans.map((p) => p.currency)]] : []),
      [discounted ? t("fin_form.r_total") : t("r.plan"), ...plans.map((p) => h(p.id === body.cheapest_id && !mixed
        ? "strong" : "span", {}, usd(p.total_cost_usd, p)))],
      // a plan made at a discount rate was chosen, and is drawn, on present values: they are shown beside
      ...(discounted ? [[t("c.present_value"), ...plans.map((p) => t("c.pv_at", {
        usd: usd(p.costs.present_value_usd ?? p.total_cost_usd, p), rate: pct(full.get(p.id)?.discount_rate || 0) }))]]
        : []),
      ...(mixed ? [[t("c.in_currency", { currency: body.currency }), ...plans.map((p) => h(p.id === body.cheapest_id
        ? "strong" : "span", {}, money(p.total_in_common, body.currency)))]] : []),
      [t("r.purchases"), ...plans.map((p) => usd(p.costs.capex_usd, p))],
      [t("r.electricity"), ...plans.map((p) => usd(p.costs.electricity_usd, p))],
      [t("r.cloud"), ...plans.map((p) => usd(p.costs.cloud_usd, p))],
      // the money-over-time parts where a plan has them, so each column adds up to its total
      ...[["fin_form.r_commitments", "commitments_usd"], ["fin_form.r_opex", "opex_usd"],
        ["fin_form.r_interest", "financing_interest_usd"], ["fin_form.r_cloud_data", "cloud_data_usd"]]
        .filter(([, key]) => plans.some((p) => p.costs[key])).map(([name, key]) => [t(name),
          ...plans.map((p) => usd(p.costs[key] || 0, p))]),
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

  /** An input by the form's own label where the form has one (its path as a tooltip); an entry of a labelled
   *  table by the table's label and its key ("Measured throughput …: V100"); else its path. */
  function field(path) {
    if (FIELD_LABELS[path]) return h("span", { title: path, "data-path": path }, FIELD_LABELS[path]);
    const parts = path.split(".");
    for (let cut = parts.length - 1; cut > 0; cut--) {
      const table = parts.slice(0, cut).join(".");
      if (FIELD_LABELS[table]) {
        return h("span", { title: path, "data-path": path }, t("f.set_item", { name: FIELD_LABELS[table],
          value: parts.slice(cut).join(".") }));
      }
    }
    return h("code", {}, path);
  }

  const figure = (v) => v.toLocaleString(locale, { maximumFractionDigits: 4 });

  /** An input's value as the form shows it: a choice in the form's words, yes or no, a percent where the form
   *  takes one, a date as the reader writes it, a list by its items (quotes by their names, a series or an hourly
   *  log by its length), "none" for an empty list; never the API's codes or JSON. */
  function shown(path, v) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "boolean") return v ? t("f.yes") : t("f.no");
    if (typeof v === "number") return PERCENT_FIELDS.has(path) ? pct(v) : figure(v);
    if (typeof v === "string") {
      return FIELD_VALUES[path]?.[v] ?? (/^\d{4}-\d{2}-\d{2}$/.test(v) ? date(v) : v);
    }
    if (Array.isArray(v)) {
      if (!v.length) return t("c.none");
      if (v.every((item) => item && typeof item.name === "string")) {
        return v.map((item) => productName(item.name)).join("; ");
      }
      if (v.every((item) => typeof item === "string")) return v.join(", ");
      return t("c.n_items", { n: num(v.length, 0) });  // a monthly series, an hourly log
    }
    return Object.entries(v).map(([key, inner]) => `${key}: ${shown(`${path}.${key}`, inner)}`).join("; ");
  }

  function differences(body) {
    const content = body.differing_inputs.length
      ? table(t("c.inputs"), [{ label: t("c.field"), wrap: true }, ...body.plans.map((p, i) => ({ label: label(i),
        wrap: true }))], body.differing_inputs.map((d) => [field(d.field), ...d.values.map((v) => shown(d.field, v))]))
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
