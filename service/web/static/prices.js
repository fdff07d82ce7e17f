/* The price page: the cheapest offer per GPU (from GET /v1/prices) and one GPU's price-history chart (SVG). */
"use strict";

(() => {
  const { h, t, usd, num, date, dateTime, call, table, chartUrl } = gp;
  const { value } = gpText;
  const perHour = (value) => t("ui_form.prices.per_hour", { price: usd(value) });
  const $ = (id) => document.getElementById(id);

  /** Per GPU: the cheapest cloud offer per GPU-hour, and the cheapest used and new unit per GPU. */
  function cheapest(prices) {
    const byGpu = new Map();
    for (const p of prices) {
      if (p.kind === "commitment") continue;
      const entry = byGpu.get(p.gpu) || { gpu: p.gpu, cloud: null, used: null, new: null };
      const perGpu = p.kind === "cloud" ? p.usd_per_hour / p.gpu_count : p.unit_price_usd / p.gpus_per_unit;
      if (!entry[p.kind] || perGpu < entry[p.kind].perGpu) entry[p.kind] = { perGpu, offer: p };
      byGpu.set(p.gpu, entry);
    }
    return byGpu;
  }

  function offerCell(best) {
    if (!best) return "–";
    const o = best.offer;
    const what = o.kind === "cloud" ? `${o.provider} ${o.name}${o.pricing === "spot" ? ` (${t("ui_form.prices.spot")})`
      : ""}` : o.name;
    return [h("span", {}, o.kind === "cloud" ? perHour(best.perGpu) : usd(best.perGpu)),
      h("span", { class: "offer" }, `${what}, ${date(o.as_of)}`)];
  }

  /** Commitment prices (reserved, committed use): per GPU and term the cheapest per GPU-hour (plans reserve them
   *  when a profile allows commitments). */
  function commitmentTable(prices) {
    const best = new Map();
    for (const p of prices) {
      if (p.kind !== "commitment") continue;
      const key = `${p.gpu}|${p.term_months}`;
      const perGpu = p.usd_per_hour / p.gpu_count;
      if (!best.has(key) || perGpu < best.get(key).perGpu) best.set(key, { perGpu, offer: p });
    }
    const rows = [...best.values()]
      .sort((a, b) => a.offer.gpu.localeCompare(b.offer.gpu) || a.offer.term_months - b.offer.term_months)
      .map(({ perGpu, offer: o }) => [o.gpu, t("ui_form.prices.months", { n: num(o.term_months, 0) }), perHour(perGpu),
        `${o.provider} ${o.name} (${value("pricing", o.pricing)}${o.payment ? `, ${value("payment", o.payment)}` : ""})`,
        date(o.as_of)]);
    const wrap = table(t("ui_form.prices.commitment_caption"), [{ label: t("ui_form.prices.gpu") },
      { label: t("ui_form.prices.term") }, { label: t("ui_form.prices.per_gpu_hour"), num: true },
      { label: t("ui_form.prices.offer"), wrap: true }, { label: t("ui_form.prices.as_of") }], rows);
    $("commitment-table").replaceChildren(rows.length ? wrap
      : h("p", { class: "muted" }, t("ui_form.prices.none_commitment")));
  }

  function showChart(gpu, moveFocus) {
    const src = chartUrl("/v1/prices/history.svg", { gpu });
    const img = $("history-chart");
    $("status").textContent = t("ui_form.prices.loading", { gpu });
    img.onload = () => { $("status").textContent = t("ui_form.prices.loaded", { gpu }); };
    img.onerror = () => { $("status").textContent = t("ui_form.prices.no_chart", { gpu }); };
    $("history-narrow").srcset = chartUrl("/v1/prices/history.svg", { gpu, size: "narrow" });
    img.src = src;
    img.alt = t("ui_form.prices.chart_alt", { gpu });
    $("history-link").href = src;
    $("history-gpu").value = gpu;
    for (const row of document.querySelectorAll("#price-table tbody tr")) {
      row.setAttribute("aria-current", row.dataset.gpu === gpu ? "true" : "false");
    }
    history.replaceState(null, "", `?gpu=${encodeURIComponent(gpu)}`);
    if (moveFocus) $("history-gpu").focus();
  }

  /** Every price source: how it refreshes, its last success, rows in force, fresh or stale and why. The plan page
   *  says this in one line and links here (issue 33). */
  function sourcesTable(sources) {
    const status = (s) => (!s.enabled ? "off" : s.stale ? "stale" : "fresh");
    const why = (s) => (!s.enabled ? (s.missing_credentials?.length
      ? t("r.needs", { names: s.missing_credentials.join(", ") }) : t("r.turned_off")) : s.stale ? staleWhy(s) : "");
    const rows = sources.map((s) => [s.source, s.enabled ? (s.scheduled ? t("r.every_h", { n: num(s.interval_hours) })
      : t("r.by_hand")) : "–", s.last_success_at ? dateTime(s.last_success_at) : t("r.never"),
    num(s.rows_in_force, 0), h("span", { class: `badge ${status(s)}` }, t(`r.status_${status(s)}`)), why(s)]);
    $("sources-table").replaceChildren(table(t("r.live_sources"), [{ label: t("r.source") },
      { label: t("r.refresh") }, { label: t("r.last_success") }, { label: t("r.rows"), num: true },
      { label: t("r.status") }, { label: t("r.why"), wrap: true }], rows));
  }

  /** Why a source is stale, from its state's fields (the API's `stale_reasons` are English sentences; a provider's
   *  error is the service's words for it, e.g. "cannot reach HOST: ..."). The API's reasons when none explains it. */
  function staleWhy(s) {
    const lines = [];
    const success = s.last_success_at ? Date.parse(s.last_success_at) : null;
    if (success === null) lines.push(t("r.why_never"));
    if (s.last_error && (success === null || Date.parse(s.last_error_at) >= success)) {
      lines.push(t("r.why_failed", { error: s.last_error }));
    }
    if (success !== null && s.stale_after_hours && Date.now() - success > s.stale_after_hours * 3600000) {
      lines.push(t("r.why_old", { date: date(s.last_success_at), hours: num(s.stale_after_hours) }));
    }
    return (lines.length ? lines : s.stale_reasons || []).join("; ");
  }

  async function init() {
    const [prices, gpus, sources] = await Promise.all([call("/v1/prices"), call("/v1/gpus"), call("/v1/sources")]);
    if (sources.ok) sourcesTable(sources.body);
    if (!prices.ok) {
      $("status").textContent = t("ui_form.prices.failed", { error: prices.body?.detail || prices.status });
      return;
    }
    const memory = new Map(gpus.ok ? gpus.body.map((g) => [g.name, g.memory_gb]) : []);
    const best = [...cheapest(prices.body).values()].sort((a, b) => a.gpu.localeCompare(b.gpu));
    const rows = best.map((e) => [
      h("button", { type: "button", class: "link", "data-gpu": e.gpu,
        "aria-label": t("ui_form.prices.show_history", { gpu: e.gpu }) }, e.gpu),
      memory.has(e.gpu) ? t("ui_form.prices.gb", { n: num(memory.get(e.gpu), 0) }) : "–",
      offerCell(e.cloud), offerCell(e.used), offerCell(e.new),
    ]);
    const wrap = table(t("ui_form.prices.cheapest"), [{ label: t("ui_form.prices.gpu") },
      { label: t("ui_form.prices.memory"), num: true }, { label: t("ui_form.prices.cloud"), wrap: true },
      { label: t("ui_form.prices.used"), wrap: true }, { label: t("ui_form.prices.new"), wrap: true }], rows);
    wrap.querySelector("table").classList.add("price-table");
    wrap.querySelectorAll("tbody tr").forEach((row, i) => { row.dataset.gpu = best[i].gpu; });
    $("price-table").replaceChildren(wrap);
    commitmentTable(prices.body);
    wrap.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-gpu]");
      if (button) {
        showChart(button.dataset.gpu, true);
        $("history-title").scrollIntoView({ behavior: "smooth", block: "start" });
      }
    });
    const select = $("history-gpu");
    select.replaceChildren(...best.map((e) => h("option", { value: e.gpu }, e.gpu)));
    select.addEventListener("change", () => showChart(select.value, false));
    const asked = new URLSearchParams(location.search).get("gpu");
    const first = best.find((e) => e.gpu === asked) || best.find((e) => e.gpu === "RTX 3090") || best[0];
    if (first) showChart(first.gpu, false);
  }

  init();
})();
