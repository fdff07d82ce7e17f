/* The plan across its futures (issue 32): a card, for a plan made with `uncertainty`, with the totals of the plan
 * and of cloud only (expected, P10, median, P90, the worst share), the chances and values a finance office reads,
 * a fan of cumulative cost over time (P10-P90 band and median line, plan against cloud only) and a histogram of the
 * futures' totals. Money is already in the plan's currency (the API converts it); text from the page's strings. */
"use strict";

(() => {
  const { h, t, usd, pct, table } = gp;
  const NS = "http://www.w3.org/2000/svg";
  const W = 640;
  const H = 240;
  const PAD = { left: 8, right: 8, top: 12, bottom: 28 };

  /** An SVG element (a plain element where the document has no namespaces, as in the page tests). */
  function svg(tag, attrs, ...children) {
    const el = document.createElementNS ? document.createElementNS(NS, tag) : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, String(value));
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  const scale = (lo, hi, a, b) => (v) => (hi === lo ? (a + b) / 2 : a + ((v - lo) / (hi - lo)) * (b - a));

  function summary(risk) {
    const share = pct(risk.alpha);
    const rows = [[t("risk.expected"), "expected_total_usd"], [t("risk.p10"), "p10_total_usd"],
      [t("risk.p50"), "p50_total_usd"], [t("risk.p90"), "p90_total_usd"],
      [t("risk.cvar", { share }), "cvar_total_usd"]].map(([label, key]) =>
      [label, usd(risk[key]), risk.cloud_only ? usd(risk.cloud_only[key]) : "–"]);
    return table(t("risk.totals"), [{ label: "" }, { label: t("r.plan"), num: true },
      { label: t("risk.cloud_only"), num: true }], rows);
  }

  function measures(risk) {
    const rows = [[t("risk.beats"), pct(risk.probability_beats_cloud_only)],
      [t("risk.pays"), pct(risk.probability_buying_pays_off)],
      [t("risk.today"), usd(risk.deterministic_expected_total_usd)],
      [t("risk.vss"), usd(risk.value_of_stochastic_solution_usd)]];
    if (risk.max_regret_usd !== null && risk.max_regret_usd !== undefined) {
      rows.push([t("risk.regret"), usd(risk.max_regret_usd)]);
    }
    if ((risk.deferral_months || []).length) rows.push([t("risk.deferral"), usd(risk.value_of_waiting_usd)]);
    for (const m of risk.deferred || []) {
      rows.push([t("risk.deferred", { month: m.month }), pct(m.probability_buys)]);
      for (const p of m.purchases) {
        rows.push([t("risk.deferred_item", { month: m.month, name: p.name, units: p.mean_units.toFixed(2) }),
          pct(p.probability)]);
      }
    }
    for (const w of risk.waiting || []) rows.push([t("risk.waiting", { month: w.month }), usd(w.value_usd)]);
    return table(t("risk.measures"), [{ label: t("risk.measures"), wrap: true }, { label: t("risk.value"), num: true }],
      rows);
  }

  /** Cumulative cost over time from the plan's start: each side's P10-P90 band and its median line. */
  function fan(risk, start) {
    const points = risk.fan || [];
    if (!points.length) return null;
    const days = [0, ...points.map((p) => p.day)];
    const sides = risk.cloud_only ? ["cloud_only", "plan"] : ["plan"];
    const values = points.flatMap((p) => sides.flatMap((side) => [p[`${side}_p10_usd`], p[`${side}_p90_usd`]]));
    const lo = Math.min(0, ...values);
    const hi = Math.max(...values);
    const x = scale(0, days[days.length - 1], PAD.left, W - PAD.right);
    const y = scale(lo, hi, H - PAD.bottom, PAD.top);
    // from 0 at the start (the plan's outlay shows in its first month's point)
    const at = (side, q) => [0, ...points.map((p) => p[`${side}_${q}_usd`])];
    const xy = (ys) => ys.map((v, i) => `${x(days[i]).toFixed(1)},${y(v).toFixed(1)}`);
    const band = (side) => svg("polygon", { class: `risk-${side}`, "fill-opacity": "0.2", stroke: "none",
      points: [...xy(at(side, "p10")), ...xy(at(side, "p90")).reverse()].join(" ") });
    const line = (side) => svg("polyline", { class: `risk-${side}`, fill: "none", "stroke-width": "2",
      points: xy(at(side, "p50")).join(" ") });
    return h("figure", { class: "risk-chart" },
      svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("risk.fan_desc") },
        sides.map(band), sides.map(line),
        svg("text", { x: PAD.left, y: H - 8, class: "risk-axis" }, gp.date(start)),
        svg("text", { x: W - PAD.right, y: H - 8, "text-anchor": "end", class: "risk-axis" },
          gp.date(points[points.length - 1].date)),
        svg("text", { x: W - PAD.right, y: PAD.top + 4, "text-anchor": "end", class: "risk-axis" },
          gp.wholeMoney(hi))),
      h("figcaption", {}, t("risk.fan_title"), " ", legend()));
  }

  function legend() {
    return h("span", { class: "risk-legend" }, h("span", { class: "risk-key risk-plan" }, t("r.plan")), " ",
      h("span", { class: "risk-key risk-cloud_only" }, t("risk.cloud_only")));
  }

  /** The futures' totals in twelve bins, plan and cloud only side by side, each bar its futures' weight. */
  function histogram(risk) {
    const plan = risk.totals_usd || [];
    const cloud = risk.cloud_only_totals_usd || [];
    const weights = risk.weights || [];
    if (plan.length < 2) return null;
    const all = [...plan, ...cloud];
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const bins = 12;
    const width = (hi - lo) / bins || 1;
    const count = (values) => {
      const out = new Array(bins).fill(0);
      values.forEach((v, i) => { out[Math.min(bins - 1, Math.floor((v - lo) / width))] += weights[i] || 0; });
      return out;
    };
    const sides = [["plan", count(plan)], ...(cloud.length ? [["cloud_only", count(cloud)]] : [])];
    const top = Math.max(...sides.flatMap(([, c]) => c));
    const slot = (W - PAD.left - PAD.right) / bins;
    const y = scale(0, top, H - PAD.bottom, PAD.top);
    const bars = sides.flatMap(([side, counts], s) => counts.map((c, b) => svg("rect", {
      class: `risk-${side}`, x: (PAD.left + b * slot + 2 + s * (slot - 4) / 2).toFixed(1), y: y(c).toFixed(1),
      width: ((slot - 4) / 2).toFixed(1), height: (H - PAD.bottom - y(c)).toFixed(1) })));
    return h("figure", { class: "risk-chart" },
      svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("risk.hist_desc") }, bars,
        svg("text", { x: PAD.left, y: H - 8, class: "risk-axis" }, gp.wholeMoney(lo)),
        svg("text", { x: W - PAD.right, y: H - 8, "text-anchor": "end", class: "risk-axis" }, gp.wholeMoney(hi))),
      h("figcaption", {}, t("risk.hist_title"), " ", legend()));
  }

  function card(plan) {
    const risk = plan.risk;
    if (!risk) return null;
    const objective = { expected: t("risk.obj_expected"), cvar: t("risk.obj_cvar", { share: pct(risk.alpha) }),
      regret: t("risk.obj_regret") }[risk.objective] || risk.objective;
    return h("section", { class: "card", id: "risk", "aria-labelledby": "risk-title" },
      h("h3", { id: "risk-title" }, t("risk.title", { count: risk.scenarios })),
      h("p", {}, t("risk.lead", { objective })),
      summary(risk), measures(risk), fan(risk, (plan.horizon || {}).start), histogram(risk));
  }

  (globalThis.gpResultCards ||= []).push(card);
  globalThis.gpRiskCard = card;  // the page tests render it alone
})();
