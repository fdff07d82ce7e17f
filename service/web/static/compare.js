/* The compare page: pick plans (the lab's recent ones), then GET /v1/plans/compare?ids=... side by side. */
"use strict";

(() => {
  const { h, t, usd, num, date, call, table } = gp;
  const $ = (id) => document.getElementById(id);
  const MAX = 6;

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
      h("label", { for: `pick-${p.id}` }, p.created_at ? `${date(p.created_at)} · ${usd(p.total_cost_usd)} · ` : "",
        p.recommendation || p.id))));
    if (!items.length) $("status").textContent = t("c.no_plans");
  }

  const label = (i) => t("c.plan_n", { n: i + 1 });

  function summary(body) {
    const plans = body.plans;
    const columns = [{ label: "" }, ...plans.map((p, i) => ({ label: label(i), wrap: true }))]; // sentences wrap
    const be = (p) => (p.break_even_days === null ? t("r.never")
      : `${t("r.day", { n: num(p.break_even_days, 0) })} (${date(p.break_even_date)})`);
    const bought = (p) => (p.purchases.length ? p.purchases.map((b) => `${b.count} × ${b.name}`).join("; ")
      : t("c.nothing"));
    const rows = [
      [t("r.recommendation"), ...plans.map((p) => p.recommendation)],
      [t("r.plan"), ...plans.map((p) => h(p.id === body.cheapest_id ? "strong" : "span", {}, usd(p.total_cost_usd)))],
      [t("r.purchases"), ...plans.map((p) => usd(p.costs.capex_usd))],
      [t("r.electricity"), ...plans.map((p) => usd(p.costs.electricity_usd))],
      [t("r.cloud"), ...plans.map((p) => usd(p.costs.cloud_usd))],
      [t("r.resale"), ...plans.map((p) => usd(p.costs.resale_credit_usd))],
      [t("r.cloud_only"), ...plans.map((p) => usd(p.cloud_only_total_usd))],
      [t("r.buy_only"), ...plans.map((p) => usd(p.buy_only_total_usd))],
      [t("r.break_even"), ...plans.map(be)],
      [t("c.bought"), ...plans.map(bought)],
      [t("r.cloud_h"), ...plans.map((p) => num(p.cloud_instance_hours, 1))],
      [t("c.horizon"), ...plans.map((p) => `${date(p.horizon_start)} + ${p.horizon_months}`)],
      [t("c.open"), ...plans.map((p) => h("a", { href: `/?plan=${encodeURIComponent(p.id)}` }, p.id.slice(0, 8)))],
    ];
    return h("section", { class: "card", id: "compare-summary", "aria-labelledby": "compare-summary-title" },
      h("h2", { id: "compare-summary-title" }, t("c.side_by_side")), table(t("c.side_by_side"), columns, rows));
  }

  function differences(body) {
    const shown = (v) => (v === null || v === undefined ? "–" : typeof v === "object" ? JSON.stringify(v)
      : typeof v === "number" ? num(v, v % 1 ? 3 : 0) : String(v));
    const content = body.differing_inputs.length
      ? table(t("c.inputs"), [{ label: t("c.field") }, ...body.plans.map((p, i) => ({ label: label(i), wrap: true }))],
        body.differing_inputs.map((d) => [h("code", {}, d.field), ...d.values.map(shown)]))
      : h("p", {}, t("c.same_inputs"));
    return h("section", { class: "card", id: "compare-inputs", "aria-labelledby": "compare-inputs-title" },
      h("h2", { id: "compare-inputs-title" }, t("c.inputs")), content);
  }

  function chart(ids, body) {
    const src = `/v1/plans/compare.svg?ids=${ids.map(encodeURIComponent).join(",")}`;
    const alt = body.plans.map((p, i) => `${label(i)}: ${usd(p.total_cost_usd)}`).join(", ");
    return h("section", { class: "card", id: "compare-chart", "aria-labelledby": "compare-chart-title" },
      h("h2", { id: "compare-chart-title" }, t("r.cumulative_cost")),
      h("figure", {}, h("img", { id: "comparison-chart", src, alt: `${t("r.cumulative_cost")}: ${alt}`, width: 800,
        height: 420 }), h("figcaption", {}, h("a", { href: src }, t("r.chart_svg")))));
  }

  async function show(ids) {
    $("status").textContent = t("c.loading");
    const answer = await call(`/v1/plans/compare?ids=${ids.map(encodeURIComponent).join(",")}`);
    const out = $("comparison");
    if (!answer.ok) {
      $("status").textContent = answer.body?.detail || answer.body?.title || t("s.failed");
      out.hidden = true;
      return;
    }
    out.replaceChildren(summary(answer.body), differences(answer.body), chart(ids, answer.body));
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
