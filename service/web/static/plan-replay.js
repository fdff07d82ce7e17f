/* The plan replayed hour by hour (issue 29): a result card with the replay's cost beside the model's and the chart of
 * who served the demand (GET /v1/plans/{id}/replay without its hours, and /replay.svg in the page's language). The
 * replay is in USD; the plan's own total in its currency gives the rate the plan was converted at. */
"use strict";

(() => {
  const { h, t, usd, call, chartUrl } = gp;

  function card(plan) {
    if (!plan.id) return null;
    const id = encodeURIComponent(plan.id);
    const body = h("div", { id: "replay-body" }, h("p", { class: "muted" }, t("replay.loading")));
    call(`/v1/plans/${id}/replay?hours=false`).then((answer) => {
      if (!answer.ok) {
        body.replaceChildren(h("p", {}, answer.body?.detail || t("s.failed")));
        return;
      }
      const found = answer.body;
      const rate = found.model_total_usd ? plan.total_cost_usd / found.model_total_usd : 1;
      const money = (value) => usd(value * rate);
      const lines = found.total_usd === null ? [h("p", {}, t("replay.infeasible"))] : [
        h("p", {}, t("replay.agrees", { replay: money(found.total_usd), model: money(found.model_total_usd) })),
        h("p", {}, found.agrees
          ? t("replay.within", { difference: money(Math.abs(found.difference_usd)), bound: money(found.bound_usd) })
          : t("replay.disagrees", { difference: money(Math.abs(found.difference_usd)), bound: money(found.bound_usd) })),
      ];
      body.replaceChildren(...lines,
        h("figure", {}, h("img", { id: "replay-chart", src: chartUrl(`/v1/plans/${id}/replay.svg`, {}),
          alt: t("replay.title"), width: 800, height: 360, loading: "lazy" })),
        h("p", { class: "small" }, h("a", { href: `/v1/plans/${id}/replay` }, t("replay.json"))));
    });
    return h("section", { class: "card", id: "replay", "aria-labelledby": "replay-title" },
      h("h3", { id: "replay-title" }, t("replay.title")), body);
  }

  (globalThis.gpResultCards ||= []).push(card);
})();
