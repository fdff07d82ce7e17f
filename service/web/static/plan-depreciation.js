/* Depreciation of the purchases (issue 16 via issue 17): the purchase request's parameters (straight line or
 * declining balance, years, rate, salvage value) on the form, and the schedule as a result card. They are not part
 * of the profile (GET /v1/plans/{id}/purchase-request takes them as query parameters), so the page keeps them in
 * its own address (?plan=<id>&depreciation_method=...), which fills them back. */
"use strict";

(() => {
  const { h, t, usd, num, call, table } = gp;
  const $ = (id) => document.getElementById(id);
  // query parameter -> input; the same names as the purchase request's
  const PARAMS = { depreciation_method: "dep_method", depreciation_years: "dep_years", declining_rate: "dep_rate",
    salvage_usd: "dep_salvage" };
  const percent = (value) => String(Number((Number(value) * 100).toPrecision(12)));

  /** The purchase request's query parameters from the inputs (empty ones keep the API's defaults). */
  function chosen() {
    const found = new URLSearchParams();
    if ($("dep_method").value !== "straight_line") found.set("depreciation_method", $("dep_method").value);
    for (const [name, id] of Object.entries(PARAMS).slice(1)) {
      const raw = $(id).value.trim();
      if (raw !== "") found.set(name, name === "declining_rate" ? String(Number(raw) / 100) : raw);
    }
    return found;
  }

  function fillFromAddress() {
    const asked = new URLSearchParams(location.search);
    $("dep_method").value = asked.get("depreciation_method") || "straight_line";
    for (const [name, id] of Object.entries(PARAMS).slice(1)) {
      const raw = asked.get(name);
      $(id).value = raw === null ? "" : name === "declining_rate" ? percent(raw) : raw;
    }
  }

  /** The address names the plan and the depreciation asked for, so a reload or a shared link shows the same. */
  function remember(planId) {
    const address = new URLSearchParams({ plan: planId });
    for (const [name, value] of chosen()) address.set(name, value);
    history.replaceState(null, "", `?${address}`);
  }

  let shown = null;  // the plan whose card is on the page, redrawn when the parameters change

  function card(plan) {
    shown = plan;
    if (!plan.id || !(plan.costs?.capex_usd > 0)) return null;
    remember(plan.id);
    const query = chosen().toString();
    const src = `/v1/plans/${encodeURIComponent(plan.id)}/purchase-request${query ? `?${query}` : ""}`;
    const body = h("div", { id: "depreciation-body" }, h("p", { class: "muted" }, t("dep.loading")));
    call(src).then((answer) => {
      const schedule = answer.ok ? answer.body.depreciation : null;
      if (!schedule) {
        body.replaceChildren(h("p", {}, answer.body?.errors?.[0]?.message || answer.body?.detail || t("s.failed")));
        return;
      }
      const rows = schedule.schedule.map((r) => [num(r.year, 0), usd(r.opening_book_value_usd), usd(r.depreciation_usd),
        usd(r.closing_book_value_usd)]);
      body.replaceChildren(h("p", {}, t(`dep.method.${schedule.method}`), " · ", t("dep.summary", {
        years: num(schedule.years, 0), cost: usd(schedule.cost_usd), salvage: usd(schedule.salvage_usd) }),
      schedule.rate ? ` · ${t("dep.rate_is", { rate: gp.pct(schedule.rate) })}` : ""),
      table(t("dep.title"), [{ label: t("dep.year") }, { label: t("dep.opening"), num: true },
        { label: t("dep.amount"), num: true }, { label: t("dep.closing"), num: true }], rows),
      h("p", { class: "small" }, h("a", { href: src }, t("dep.request_json"))));
    });
    return h("section", { class: "card", id: "depreciation", "aria-labelledby": "depreciation-title" },
      h("h3", { id: "depreciation-title" }, t("dep.title")), body);
  }

  fillFromAddress();
  for (const id of Object.values(PARAMS)) {
    $(id).addEventListener("change", () => {
      const old = $("depreciation");
      const fresh = shown && old ? card(shown) : null;
      if (fresh) old.replaceWith(fresh);
    });
  }
  (globalThis.gpResultCards ||= []).push(card);
})();
