/* The plan as a person reads it: sentence, chart, thresholds, costs, purchases, months, price freshness. */
"use strict";

const gpResult = (() => {
  const { h, usd, num, pct, addDays, ageDays, call, table } = gp;
  const $ = (id) => document.getElementById(id);
  let lastProfile = null;

  function card(title, id, ...children) {
    return h("section", { class: "card", id, "aria-labelledby": `${id}-title` }, h("h3", { id: `${id}-title` }, title),
      ...children);
  }

  function headline(plan) {
    const be = plan.break_even;
    const cloudOnly = plan.alternatives.cloud_only;
    const buyOnly = plan.alternatives.buy_only;
    const stat = (label, value, note) => h("div", { class: "stat" }, h("span", { class: "stat-label" }, label),
      h("span", { class: "stat-value" }, value), note ? h("span", { class: "stat-note" }, note) : null);
    const saving = cloudOnly ? cloudOnly.total_cost_usd - plan.total_cost_usd : null;
    const stats = h("div", { class: "stats" },
      stat("Plan", usd(plan.total_cost_usd), `over ${plan.horizon.periods} months`),
      stat("Cloud only", cloudOnly ? usd(cloudOnly.total_cost_usd) : "–",
        saving !== null && saving > 0.5 ? `plan saves ${usd(saving)}` : "no saving"),
      stat("Buy only", buyOnly ? usd(buyOnly.total_cost_usd) : "–", buyOnly ? null : "not possible"),
      stat("Break-even", be.days === null ? "never" : `day ${num(be.days, 0)}`,
        be.days === null ? "within the horizon" : addDays(plan.horizon.start, be.days)));
    const warnings = plan.warnings.length ? h("ul", { class: "warnings", "aria-label": "Warnings" },
      plan.warnings.map((w) => h("li", {}, w))) : null;
    return h("section", { class: "card headline", "aria-labelledby": "recommendation-title" },
      h("h2", { id: "recommendation-title", tabindex: "-1" }, "Recommendation"),
      h("p", { class: "sentence", id: "recommendation" }, plan.recommendation), stats, warnings);
  }

  function chart(plan) {
    const be = plan.break_even;
    const cloudOnly = plan.alternatives.cloud_only;
    const buyOnly = plan.alternatives.buy_only;
    const alt = `Cumulative cost over ${plan.horizon.periods} months: plan ${usd(plan.total_cost_usd)}`
      + (cloudOnly ? `, cloud only ${usd(cloudOnly.total_cost_usd)}` : "")
      + (buyOnly ? `, buy only ${usd(buyOnly.total_cost_usd)}` : "")
      + (be.days === null ? "; the plan never drops below cloud only." :
        `; the plan drops below cloud only on day ${num(be.days, 0)} (${addDays(plan.horizon.start, be.days)}).`);
    const src = `/v1/plans/${encodeURIComponent(plan.id)}/chart.svg`;
    return card("Cumulative cost", "chart",
      h("figure", {}, h("picture", {}, h("source", { media: "(max-width: 640px)", srcset: `${src}?size=narrow` }),
        h("img", { id: "plan-chart", src, alt, width: 800, height: 420 })),
        h("figcaption", {}, `${plan.horizon.start} to ${plan.horizon.end}. `,
          h("a", { href: src }, "Chart as SVG"), " · ", h("a", { href: `/v1/plans/${plan.id}` }, "Plan as JSON"))));
  }

  function thresholds(plan) {
    const be = plan.break_even;
    const buys = plan.buy.length > 0;
    const mine = lastProfile || {};
    const row = (label, value, text, note) => [h("dt", {}, label), h("dd", {}, h("strong", {}, value), " ",
      h("span", {}, text), note ? h("span", { class: "muted" }, ` (${note})`) : null)];
    const yours = (value) => (value === null || value === undefined ? null : `this profile: ${value}`);
    const rows = [];
    if (be.utilisation_threshold !== null) {
      rows.push(row("Utilisation", pct(be.utilisation_threshold), "buying pays from this utilisation",
        yours(mine.demand?.utilisation !== undefined ? pct(mine.demand.utilisation) : null)));
    }
    rows.push(row("Demand", be.demand_scale_threshold === null ? "–" : `${num(be.demand_scale_threshold, 2)}×`,
      be.demand_scale_threshold === null ? "buying does not pay at any multiple of this demand tested"
        : "buying pays from this multiple of the demand"));
    const e = be.electricity_threshold_usd_per_kwh;
    const eText = buys ? (e === null ? "buying keeps paying at any electricity price tested" : "buying stops paying above this price")
      : (e === null ? "buying does not pay even with free electricity" : "buying would pay below this price");
    rows.push(row("Electricity", e === null ? "–" : `${usd(e)}/kWh`, eText,
      yours(mine.electricity_usd_per_kwh !== undefined ? `${usd(mine.electricity_usd_per_kwh)}/kWh` : null)));
    const c = be.cloud_price_threshold_usd_per_hour;
    const cText = buys ? (c === null ? "renting does not win at any cloud price tested" : "renting wins below this price")
      : (c === null ? "buying does not pay at any cloud price tested" : "buying would pay above this price");
    rows.push(row("Cloud price", c === null ? "–" : `${usd(c)}/h`, cText,
      be.cloud_price_threshold_offer ? `reference offer: ${be.cloud_price_threshold_offer}` : null));
    const simple = be.simple ? h("p", { class: "formula" }, "The guide's closed form: ",
      h("code", {}, be.simple.formula), ` = ${usd(be.simple.upfront_usd)} / (${usd(be.simple.cloud_usd_per_day)}`
      + ` − ${usd(be.simple.owned_usd_per_day)}) per day = `,
      h("strong", {}, be.simple.days === null ? "never" : `${num(be.simple.days, 0)} days`),
      ` (${be.simple.owned} against ${be.simple.cloud}).`) : null;
    return card("When the decision flips", "thresholds", h("dl", { class: "thresholds" }, rows.flat()),
      h("p", { class: "muted small" }, be.thresholds_note), simple);
  }

  function costs(plan) {
    const alts = plan.alternatives;
    const columns = [{ label: "" }, { label: "Plan", num: true }, { label: "Cloud only", num: true },
      { label: "Buy only", num: true }];
    const pick = (c, key) => (c ? usd(c[key]) : "–");
    const lines = [["Purchases", "capex_usd"], ["Electricity", "electricity_usd"], ["Cloud", "cloud_usd"],
      ["Resale credit", "resale_credit_usd"]];
    const rows = lines.map(([label, key]) => [label, pick(plan.costs, key), pick(alts.cloud_only?.costs, key),
      pick(alts.buy_only?.costs, key)]);
    const footer = ["Total", usd(plan.total_cost_usd), pick(alts.cloud_only, "total_cost_usd"),
      pick(alts.buy_only, "total_cost_usd")];
    const notes = alts.notes.length ? h("ul", { class: "muted small" }, alts.notes.map((n) => h("li", {}, n))) : null;
    return card("Cost breakdown", "costs", table("Cost breakdown, USD", columns, rows, footer), notes);
  }

  function purchases(plan) {
    const parts = [];
    if (plan.buy.length || plan.hosts.length) {
      const rows = plan.buy.map((b) => [b.name, `${b.count} × ${b.gpus_per_unit} ${b.gpu}`, b.condition,
        usd(b.unit_price_usd), usd(b.count * b.unit_price_usd), b.price_as_of]);
      for (const host of plan.hosts) {
        rows.push([host.name, `${host.count} host${host.count === 1 ? "" : "s"}, ${host.slots} slots`, "host",
          usd(host.unit_price_usd), usd(host.count * host.unit_price_usd), host.price_as_of]);
      }
      parts.push(table("Purchases", [{ label: "Item", wrap: true }, { label: "Units" }, { label: "Condition" },
        { label: "Unit price", num: true }, { label: "Cost", num: true }, { label: "Price as of" }], rows));
    } else {
      parts.push(h("p", {}, "Nothing to buy: the plan rents only."));
    }
    if (plan.cloud.length) {
      parts.push(h("h4", {}, "Cloud offers"), table("Cloud offers", [{ label: "Offer", wrap: true }, { label: "GPUs" },
        { label: "Pricing" }, { label: "USD/h", num: true }, { label: "Hours", num: true }, { label: "Cost", num: true }],
      plan.cloud.map((c) => [`${c.provider}/${c.name} (${c.region})`, `${c.gpu_count} × ${c.gpu}`,
        c.pricing.replace("_", "-"), usd(c.usd_per_hour), num(c.hours, 1), usd(c.cost_usd)])));
    }
    return card("Purchases and cloud offers", "purchases", ...parts);
  }

  function months(plan) {
    const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
    const total = (key) => plan.periods.reduce((a, p) => a + (typeof key === "function" ? key(p) : p[key]), 0);
    const most = (key) => plan.periods.reduce((a, p) => Math.max(a, p[key] ?? 0), 0);
    // waiting columns only where the profile lets work wait and some did; peaks and idle rented GPUs always
    const waited = plan.periods.some((p) => (p.waited_gpu_hours ?? 0) > 0);
    const rows = plan.periods.map((p) => [p.month, num(p.demand_reference_gpu_hours, 1), num(sum(p.owned_gpu_hours), 1),
      num(sum(p.cloud_hours), 1), num(p.peak_owned_gpus ?? 0, 1), num(p.peak_rented_gpus ?? 0, 1),
      num(p.unused_rented_gpu_hours ?? 0, 1),
      ...(waited ? [num(p.waited_gpu_hours ?? 0, 1), num(p.max_wait_hours ?? 0, 0)] : []),
      usd(p.electricity_usd), usd(p.cloud_usd)]);
    const footer = ["Total", num(total("demand_reference_gpu_hours"), 1), num(total((p) => sum(p.owned_gpu_hours)), 1),
      num(total((p) => sum(p.cloud_hours)), 1), `max ${num(most("peak_owned_gpus"), 1)}`,
      `max ${num(most("peak_rented_gpus"), 1)}`, num(total((p) => p.unused_rented_gpu_hours ?? 0), 1),
      ...(waited ? [num(total((p) => p.waited_gpu_hours ?? 0), 1), `max ${num(most("max_wait_hours"), 0)}`] : []),
      usd(total("electricity_usd")), usd(total("cloud_usd"))];
    const columns = [{ label: "Month" }, { label: "Demand (ref. GPU-h)", num: true }, { label: "Owned GPU-h", num: true },
      { label: "Cloud instance-h", num: true }, { label: "Peak owned GPUs", num: true },
      { label: "Peak rented GPUs", num: true }, { label: "Unused rented GPU-h", num: true },
      ...(waited ? [{ label: "Waited GPU-h", num: true }, { label: "Max wait (h)", num: true }] : []),
      { label: "Electricity", num: true }, { label: "Cloud", num: true }];
    return card("Month by month", "months", h("details", { open: true },
      h("summary", {}, `${plan.periods.length} months: GPU-hours, GPUs busy at once, idle rented GPUs and costs`),
      h("div", { class: "scroll-y" }, table("Month by month", columns, rows, footer))));
  }

  function sourceLabel(key) {
    const [kind, name] = key.split("/", 2);
    if (kind === "request") return name ? `your quote (${name})` : "your quotes";
    if (kind === "snapshot") return `${name} (bundled snapshot)`;
    if (kind === "quotes") return `imported quotes ${name}`;
    return `${key} (live)`;
  }

  function freshness(plan, sources) {
    const used = Object.entries(plan.prices_as_of).map(([key, asOf]) => {
      const age = ageDays(asOf);
      return [sourceLabel(key), asOf, age === null ? "–" : `${num(age, 0)} days`];
    });
    const parts = [table("Prices this plan used", [{ label: "Source" }, { label: "Prices as of" },
      { label: "Age", num: true }], used)];
    if (sources && sources.length) {
      const status = (s) => (!s.enabled ? "off" : s.stale ? "stale" : "fresh");
      const why = (s) => (!s.enabled ? (s.missing_credentials?.length ? `needs ${s.missing_credentials.join(", ")}`
        : "turned off") : s.stale ? (s.stale_reasons || []).join("; ") : "");
      const rows = sources.map((s) => [s.source, s.enabled ? (s.scheduled ? `every ${num(s.interval_hours)} h` : "by hand")
        : "–", s.last_success_at ? s.last_success_at.slice(0, 16).replace("T", " ") : "never", num(s.rows_in_force, 0),
      h("span", { class: `badge ${status(s)}` }, status(s)), why(s)]);
      parts.push(h("h4", {}, "Live sources"), table("Live price sources", [{ label: "Source" }, { label: "Refresh" },
        { label: "Last success (UTC)" }, { label: "Rows", num: true }, { label: "Status" }, { label: "Why", wrap: true }], rows));
    }
    return card("Price freshness", "freshness", ...parts);
  }

  async function render(plan) {
    const result = $("result");
    const sources = await call("/v1/sources");
    result.replaceChildren(headline(plan), chart(plan), thresholds(plan), costs(plan), purchases(plan), months(plan),
      freshness(plan, sources.ok ? sources.body : null));
    $("placeholder").hidden = true;
    result.hidden = false;
  }

  /** Show a plan; `profile` (when known) lets the thresholds name this profile's own values. */
  async function show(plan, profile) {
    lastProfile = profile || null;
    await render(plan);
  }

  return { show, months };  // months: also for tests/service/web/test_month_table.py
})();
