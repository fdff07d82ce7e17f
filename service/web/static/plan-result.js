/* The plan as a person reads it: sentence, chart, thresholds, costs, purchases, months, price freshness. */
"use strict";

const gpResult = (() => {
  const { h, t, usd, amount, num, pct, addDays, date, period, dateTime, ageDays, call, table, chartUrl } = gp;
  const { value, recommendation, notices, offer, decision, fromUsd, productName } = gpText;
  const $ = (id) => document.getElementById(id);
  const plural = new Intl.PluralRules(gp.locale);
  let lastProfile = null;

  function card(title, id, ...children) {
    return h("section", { class: "card", id, "aria-labelledby": `${id}-title` }, h("h3", { id: `${id}-title` }, title),
      ...children);
  }

  /** Whether the plan was chosen, and its curves drawn, on present values (a discount rate above 0): then the
   *  headline, the chart and the decision speak of present values, and the page says so at each figure. */
  const discounted = (plan) => plan.break_even?.basis === "present_value" && plan.discount_rate > 0;

  /** A plan's or an alternative's total on the plan's basis: present value when discounted, else nominal. */
  function onBasis(plan, option) {
    if (!option) return null;
    const pv = option.costs?.present_value_usd;
    return discounted(plan) && pv !== null && pv !== undefined ? pv : option.total_cost_usd;
  }

  function headline(plan) {
    const be = plan.break_even;
    const cloudOnly = plan.alternatives.cloud_only;
    const buyOnly = plan.alternatives.buy_only;
    const pv = discounted(plan);
    const stat = (label, value, note) => h("div", { class: "stat" }, h("span", { class: "stat-label" }, label),
      h("span", { class: "stat-value" }, value), note ? h("span", { class: "stat-note" }, note) : null);
    const saving = cloudOnly ? onBasis(plan, cloudOnly) - onBasis(plan, plan) : null;
    // on present values: the label says so and the note gives the rate and the nominal sum
    const label = (key) => (pv ? t("r.at_pv", { what: t(key) }) : t(key));
    const nominal = (option) => t("r.pv_note", { rate: pct(plan.discount_rate), usd: usd(option.total_cost_usd) });
    const stats = h("div", { class: "stats" },
      stat(label("r.plan"), usd(onBasis(plan, plan)),
        pv ? nominal(plan) : t("r.over_months", { n: plan.horizon.periods })),
      stat(label("r.cloud_only"), cloudOnly ? usd(onBasis(plan, cloudOnly)) : "–",
        saving !== null && saving > 0.5 ? t("r.plan_saves", { usd: usd(saving) }) : t("r.no_saving")),
      stat(label("r.buy_only"), buyOnly ? usd(onBasis(plan, buyOnly)) : "–",
        buyOnly ? (pv ? nominal(buyOnly) : null) : t("r.not_possible")),
      stat(t("r.break_even"), be.days === null ? t("r.never") : t("r.day", { n: num(be.days, 0) }),
        be.days === null ? t("r.within_horizon") : date(addDays(plan.horizon.start, be.days))));
    const warnings = plan.warnings.length ? h("ul", { class: "warnings", "aria-label": t("r.warnings") },
      notices(plan, plan.notices, plan.warnings).map((w) => h("li", {}, w))) : null;
    return h("section", { class: "card headline", "aria-labelledby": "recommendation-title" },
      h("h2", { id: "recommendation-title", tabindex: "-1" }, t("r.recommendation")),
      h("p", { class: "sentence", id: "recommendation" }, recommendation(plan, lastProfile)), stats, warnings);
  }

  function chart(plan) {
    const be = plan.break_even;
    const cloudOnly = plan.alternatives.cloud_only;
    const buyOnly = plan.alternatives.buy_only;
    // the chart's curves are on the plan's basis: its description gives the same totals the chart ends at
    const totals = { n: plan.horizon.periods, usd: usd(onBasis(plan, plan)), rate: pct(plan.discount_rate) };
    const alt = (discounted(plan) ? t("r.chart_alt_pv", totals) : t("r.chart_alt", totals))
      + (cloudOnly ? t("r.chart_alt_cloud", { usd: usd(onBasis(plan, cloudOnly)) }) : "")
      + (buyOnly ? t("r.chart_alt_buy", { usd: usd(onBasis(plan, buyOnly)) }) : "")
      + (be.days === null ? t("r.chart_alt_never") :
        t("r.chart_alt_day", { n: num(be.days, 0), date: date(addDays(plan.horizon.start, be.days)) }));
    const path = `/v1/plans/${encodeURIComponent(plan.id)}/chart.svg`;
    const src = chartUrl(path);
    return card(discounted(plan) ? t("r.cumulative_cost_pv", { rate: pct(plan.discount_rate) }) : t("r.cumulative_cost"),
      "chart",
      h("figure", {}, h("picture", {},
        h("source", { media: "(max-width: 640px)", srcset: chartUrl(path, { size: "narrow" }) }),
        h("img", { id: "plan-chart", src, alt, width: 800, height: 420 })),
        h("figcaption", {}, t("r.from_to", { start: date(plan.horizon.start), end: date(plan.horizon.end) }), " ",
          h("a", { href: src }, t("r.chart_svg")), " · ", h("a", { href: `/v1/plans/${plan.id}` }, t("r.plan_json")),
          " · ", h("a", { href: `/compare?ids=${encodeURIComponent(plan.id)}` }, t("r.compare_link")))));
  }

  function thresholds(plan) {
    const be = plan.break_even;
    const buys = plan.buy.length > 0;
    const mine = lastProfile || {};
    const row = (label, value, text, note) => [h("dt", {}, label), h("dd", {}, h("strong", {}, value), " ",
      h("span", {}, text), note ? h("span", { class: "muted" }, ` (${note})`) : null)];
    const yours = (value) => (value === null || value === undefined ? null : t("r.this_profile", { value }));
    const rows = [];
    if (be.utilisation_threshold !== null) {
      rows.push(row(t("r.utilisation"), pct(be.utilisation_threshold), t("r.th_util"),
        yours(mine.demand?.utilisation !== undefined ? pct(mine.demand.utilisation) : null)));
    }
    rows.push(row(t("r.demand"), be.demand_scale_threshold === null ? "–" : `${num(be.demand_scale_threshold, 2)}×`,
      be.demand_scale_threshold === null ? t("r.th_demand_none") : t("r.th_demand")));
    const e = be.electricity_threshold_usd_per_kwh;
    const eText = buys ? (e === null ? t("r.th_elec_buy_none") : t("r.th_elec_buy"))
      : (e === null ? t("r.th_elec_rent_none") : t("r.th_elec_rent"));
    rows.push(row(t("r.electricity"), e === null ? "–" : t("wi.per_kwh", { price: usd(e) }), eText,
      yours(plan.electricity ? t("wi.per_kwh", { price: usd(plan.electricity.price_per_kwh) })
        : mine.electricity_usd_per_kwh !== undefined ? t("wi.per_kwh", { price: usd(mine.electricity_usd_per_kwh) })
          : null)));
    const c = be.cloud_price_threshold_usd_per_hour;
    const cText = buys ? (c === null ? t("r.th_cloud_buy_none") : t("r.th_cloud_buy"))
      : (c === null ? t("r.th_cloud_rent_none") : t("r.th_cloud_rent"));
    rows.push(row(t("r.cloud_price"), c === null ? "–" : `${usd(c)}/h`, cText,
      be.cloud_price_threshold_offer ? t("r.reference_offer", { offer: offer(plan, be.cloud_price_threshold_offer) })
        : null));
    const simple = be.simple ? h("p", { class: "formula" }, t("r.closed_form"), " ",
      h("code", {}, be.simple.formula), ` = ${usd(be.simple.upfront_usd)} / (${usd(be.simple.cloud_usd_per_day)}`
      + ` − ${usd(be.simple.owned_usd_per_day)}) = `,
      h("strong", {}, be.simple.days === null ? t("r.never") : t("r.days", { n: num(be.simple.days, 0) })),
      " ", t("r.simple_against", { owned: simpleOwned(be.simple), cloud: offer(plan, be.simple.cloud) }),
      be.simple.capped_by ? ` ${be.simple.capped_by === "max_owned_gpus" ? t("r.simple_capped_max_owned_gpus")
        : t("r.simple_capped_max_capex_usd")}` : null) : null;
    return card(t("r.flips"), "thresholds", h("dl", { class: "thresholds" }, rows.flat()),
      h("p", { class: "muted small" }, t("r.thresholds_note")), simple);
  }

  /** The closed form's owned side ("1 x RTX 3090 desktop", "2 x RTX 4090 in 1 x 2-GPU workstation", "8 x RTX 4090
   *  in 1 x 8-GPU server (1 job of 8 GPUs at once)") in the reader's words, from its parts; the API's English
   *  `owned` for a plan made before the parts were answered. */
  function simpleOwned(simple) {
    if (!simple.owned_name) return simple.owned;
    const units = t("r.simple_owned", { count: num(simple.units, 0), name: productName(simple.owned_name) });
    const owned = simple.hosts && simple.host_name ? t("r.simple_in_hosts", { owned: units,
      count: num(simple.hosts, 0), host: productName(simple.host_name) }) : units;
    // jobs wider than one GPU: the count in whole jobs (plans made before it was answered have no gpus_per_job)
    return simple.gpus_per_job > 1 ? t("r.simple_jobs", { owned, jobs: num(simple.jobs, 0),
      gpus: num(simple.gpus_per_job, 0) }) : owned;
  }

  function costs(plan) {
    const alts = plan.alternatives;
    const columns = [{ label: "" }, { label: t("r.plan"), num: true }, { label: t("r.cloud_only"), num: true },
      { label: t("r.buy_only"), num: true }];
    const options = [plan.costs, alts.cloud_only?.costs, alts.buy_only?.costs];
    const pick = (c, key) => (c ? usd(c[key]) : "–");
    // every part of the totals, so the column adds up: the money-over-time parts where any option has them
    const lines = [[t("r.purchases"), "capex_usd"], [t("r.electricity"), "electricity_usd"], [t("r.cloud"), "cloud_usd"],
      [t("fin_form.r_commitments"), "commitments_usd"], [t("fin_form.r_opex"), "opex_usd"],
      [t("fin_form.r_interest"), "financing_interest_usd"], [t("fin_form.r_cloud_data"), "cloud_data_usd"],
      [t("r.resale"), "resale_credit_usd"]].filter(([, key], i) => i < 3 || key === "resale_credit_usd"
        || options.some((c) => c && c[key]));
    const rows = lines.map(([label, key]) => [label, ...options.map((c) => pick(c, key))]);
    const pv = discounted(plan);
    const footer = [[pv ? t("fin_form.r_total") : t("r.total"), usd(plan.total_cost_usd),
      pick(alts.cloud_only, "total_cost_usd"), pick(alts.buy_only, "total_cost_usd")],
    // the totals the chart and the decision compare, when those are present values
    ...(pv ? [[t("fin_form.r_present_value", { rate: pct(plan.discount_rate) }),
      ...[plan, alts.cloud_only, alts.buy_only].map((o) => (o ? usd(onBasis(plan, o)) : "–"))]] : [])];
    const notes = alts.notes.length ? h("ul", { class: "muted small" },
      notices(plan, alts.notices, alts.notes).map((n) => h("li", {}, n))) : null;
    const title = t("r.costs", { currency: plan.currency || "USD" });
    return card(title, "costs", table(title, columns, rows, footer), notes);
  }

  function purchases(plan) {
    const parts = [];
    if (plan.buy.length || plan.hosts.length) {
      const rows = plan.buy.map((b) => [productName(b.name), `${b.count} × ${b.gpus_per_unit} ${b.gpu}`, value("condition", b.condition),
        usd(b.unit_price_usd), usd(b.count * b.unit_price_usd), date(b.price_as_of)]);
      for (const host of plan.hosts) {
        rows.push([host.name, t(`r.host_units.${plural.select(host.count)}`, { n: num(host.count, 0), slots: host.slots }),
          t("r.host"), usd(host.unit_price_usd), usd(host.count * host.unit_price_usd), date(host.price_as_of)]);
      }
      parts.push(table(t("r.purchases"), [{ label: t("r.item"), wrap: true }, { label: t("r.units"), wrap: true },
        { label: t("r.condition") }, { label: t("r.unit_price"), num: true }, { label: t("r.cost"), num: true },
        { label: t("r.price_as_of") }], rows));
    } else {
      parts.push(h("p", {}, t("r.nothing_to_buy")));
    }
    if (plan.cloud.length) {
      parts.push(h("h4", {}, t("r.cloud_offers")), table(t("r.cloud_offers"), [{ label: t("r.offer"), wrap: true },
        { label: t("r.gpus") }, { label: t("r.pricing") }, { label: `${plan.currency || "USD"}/h`, num: true }, { label: t("r.hours"), num: true },
        { label: t("r.cost"), num: true }],
      plan.cloud.map((c) => [`${c.provider}/${c.name} (${c.region})`, `${c.gpu_count} × ${c.gpu}`,
        value("pricing", c.pricing), usd(c.usd_per_hour), num(c.hours, 1), usd(c.cost_usd)])));
    }
    return card(t("r.purchases_offers"), "purchases", ...parts);
  }

  function months(plan) {
    const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
    const total = (key) => plan.periods.reduce((a, p) => a + (typeof key === "function" ? key(p) : p[key]), 0);
    const most = (key) => plan.periods.reduce((a, p) => Math.max(a, p[key] ?? 0), 0);
    // hours to a tenth below a thousand, whole above (a tenth of 147,302 h is noise and widens twelve columns)
    const hours = (value) => num(value, Math.abs(value) >= 1000 ? 0 : 1);
    // waiting columns only where the profile lets work wait and some did; peaks and idle rented GPUs always
    const waited = plan.periods.some((p) => (p.waited_gpu_hours ?? 0) > 0);
    // always-on load (jobs.runs = continuously): whether owned and rented GPUs covered every hour of the period
    const served = plan.periods.some((p) => p.served_every_hour != null);
    const yesNo = (ok) => (ok ? t("serve_demand.yes") : t("serve_demand.no"));
    const rows = plan.periods.map((p) => [period(p.month), hours(p.demand_reference_gpu_hours), hours(sum(p.owned_gpu_hours)),
      hours(sum(p.cloud_hours)), num(p.peak_owned_gpus ?? 0, 1), num(p.peak_rented_gpus ?? 0, 1),
      hours(p.unused_rented_gpu_hours ?? 0),
      ...(waited ? [hours(p.waited_gpu_hours ?? 0), num(p.max_wait_hours ?? 0, 0)] : []),
      ...(served ? [yesNo(p.served_every_hour)] : []),
      amount(p.electricity_usd), amount(p.cloud_usd)]);
    const max = (value) => t("r.max", { n: value });
    const footer = [t("r.total"), hours(total("demand_reference_gpu_hours")), hours(total((p) => sum(p.owned_gpu_hours))),
      hours(total((p) => sum(p.cloud_hours))), max(num(most("peak_owned_gpus"), 1)),
      max(num(most("peak_rented_gpus"), 1)), hours(total((p) => p.unused_rented_gpu_hours ?? 0)),
      ...(waited ? [hours(total((p) => p.waited_gpu_hours ?? 0)), max(num(most("max_wait_hours"), 0))] : []),
      ...(served ? [yesNo(plan.periods.every((p) => p.served_every_hour !== false))] : []),
      amount(total("electricity_usd")), amount(total("cloud_usd"))];
    const columns = [{ label: t("r.month") }, { label: t("r.demand_h"), num: true }, { label: t("r.owned_h"), num: true },
      { label: t("r.cloud_h"), num: true }, { label: t("r.peak_owned"), num: true },
      { label: t("r.peak_rented"), num: true }, { label: t("r.unused_rented_h"), num: true },
      ...(waited ? [{ label: t("r.waited_h"), num: true }, { label: t("r.max_wait_h"), num: true }] : []),
      ...(served ? [{ label: t("serve_demand.served") }] : []),
      // money without its sign in each cell (a dozen columns share a desktop's column), the currency in the header
      { label: t("r.in_currency", { name: t("r.electricity"), currency: gp.currency() }), num: true },
      { label: t("r.in_currency", { name: t("r.cloud"), currency: gp.currency() }), num: true }];
    return card(t("r.months"), "months", h("details", { open: true },
      h("summary", {}, t("r.months_summary", { n: plan.periods.length })),
      h("div", { class: "scroll-y" }, table(t("r.months"), columns, rows, footer, { dense: true }))));
  }

  function sourceLabel(key) {
    const [kind, name] = key.split("/", 2);
    if (kind === "request") return name ? t("r.src_quote", { name }) : t("r.src_quotes");
    if (kind === "snapshot") return t("r.src_snapshot", { name });
    if (kind === "quotes") return t("r.src_imported", { name });
    return t("r.src_live", { name: key });
  }

  function freshness(plan, sources) {
    const used = Object.entries(plan.prices_as_of).map(([key, asOf]) => {
      const age = ageDays(asOf);
      return [sourceLabel(key), date(asOf), age === null ? "–" : t("r.days", { n: num(age, 0) })];
    });
    const parts = [table(t("r.prices_used"), [{ label: t("r.source") }, { label: t("r.price_as_of") },
      { label: t("r.age"), num: true }], used)];
    const line = sourcesLine(sources);
    if (line) parts.push(line);
    return card(t("r.freshness"), "freshness", ...parts);
  }

  /** The live sources in one line: how many are stale and which, with a link to the price page's table of them
   *  (issue 33: offline, every source is stale, and a row each with its error crowded the plan). */
  function sourcesLine(sources) {
    const enabled = (sources || []).filter((s) => s.enabled);
    if (!enabled.length) return null;
    const stale = enabled.filter((s) => s.stale);
    const text = stale.length ? t("r.sources_stale", { count: num(stale.length, 0), n: num(enabled.length, 0),
      names: stale.map((s) => s.source).join(", ") }) : t("r.sources_fresh", { n: num(enabled.length, 0) });
    return h("p", { class: "small", id: "sources-line" }, `${text} `,
      h("a", { href: "/prices#sources" }, t("r.sources_details")));
  }

  /** The tornado: filled when GET /v1/plans/{id}/sensitivity answers (each end is a new plan: it takes a moment). */
  function sensitivity(plan) {
    const body = h("div", { id: "sensitivity-body" }, h("p", { class: "muted" }, t("r.sens_loading")));
    const section = card(t("r.sensitivity"), "sensitivity", h("p", { class: "muted small" }, t("r.sens_lead"),
      // the ends are new plans' nominal totals, beside a headline in present values
      discounted(plan) ? ` ${t("r.sens_nominal")}` : null), body);
    const base = `/v1/plans/${encodeURIComponent(plan.id)}/sensitivity`;
    call(base).then((answer) => {
      if (!answer.ok) {
        body.replaceChildren(h("p", {}, answer.body?.detail || t("s.failed")));
        return;
      }
      const found = answer.body;
      const end = (value, unit) => (unit === "x" ? `${num(value, 2)}×`
        : unit === "USD/kWh" ? t("wi.per_kwh", { price: fromUsd(plan, value, true) })  // the row's rates are USD
        : unit === "months" ? t("r.n_months", { n: num(value, 0) }) : pct(value));
      const rows = found.rows.map((r) => [t(`sens.${r.input}`), `${end(r.low_value, r.unit)} – ${end(r.high_value, r.unit)}`,
        usd(r.low_total_usd), usd(r.high_total_usd),
        r.decision_changes ? h("strong", { class: "flips" },
          `${decision(r.low_decision, r.low_purchases)} / ${decision(r.high_decision, r.high_purchases)}`)
          : t("r.sens_same")]);
      const alt = found.rows.map((r) => `${t(`sens.${r.input}`)}: ${usd(r.low_total_usd)} – ${usd(r.high_total_usd)}`)
        .join("; ");
      body.replaceChildren(
        h("figure", {}, h("picture", {},  // a phone gets the chart drawn for its width (legible text, no overlaps)
          h("source", { media: "(max-width: 640px)", srcset: chartUrl(`${base}.svg`, { size: "narrow" }) }),
          h("img", { id: "sensitivity-chart", src: chartUrl(`${base}.svg`), alt: `${t("r.sensitivity")}: ${alt}`,
            width: 800, height: 420 }))),
        table(t("r.sensitivity"), [{ label: t("r.sens_input"), wrap: true }, { label: t("r.sens_range") },
          { label: t("r.sens_low"), num: true }, { label: t("r.sens_high"), num: true },
          { label: t("r.sens_decision"), wrap: true }], rows, null, { stack: true }),
        h("p", { class: "muted small" }, t("r.sens_note")));
    });
    return section;
  }

  /** kgCO2e of the owned and the rented part, and the exchange rates' date (issue 16). */
  function carbon(plan) {
    if (!plan.carbon) return null;
    const kg = (value) => (value === null || value === undefined ? t("fin_place.unknown") : num(value, 0));
    const lines = [t("fin_place.owned_kg", { kg: kg(plan.carbon.owned_kg_co2e) }),
      t("fin_place.rented_kg", { kg: kg(plan.carbon.rented_kg_co2e) })];
    if (plan.exchange_rates) lines.push(t("fin_place.rates", { date: date(plan.exchange_rates.as_of) }));
    return card(t("fin_place.carbon_title"), "carbon", h("ul", {}, lines.map((line) => h("li", {}, line))),
      plan.carbon.notes.length ? h("p", { class: "muted small" },
        notices(plan, plan.carbon.notices, plan.carbon.notes).join(" ")) : null);
  }

  async function render(plan) {
    const result = $("result");
    gp.setCurrency(plan.currency);
    const sources = await call("/v1/sources");
    result.replaceChildren(headline(plan), chart(plan), thresholds(plan), gpWhatIf.card(plan, lastProfile),
      sensitivity(plan), costs(plan), purchases(plan), carbon(plan) || "",
      ...(globalThis.gpResultCards || []).map((extra) => extra(plan) || ""),  // cards of other modules
      months(plan),
      freshness(plan, sources.ok ? sources.body : null));
    $("placeholder").hidden = true;
    result.hidden = false;
  }

  /** Show a plan; `profile` (when known) lets the thresholds name this profile's own values. */
  async function show(plan, profile) {
    lastProfile = profile || null;
    await render(plan);
  }

  // months, thresholds: also for tests/service/web/test_month_table.py and test_closed_form_text.py
  return { show, months, thresholds };
})();
