/* What-if: sliders for utilisation, electricity, horizon and a cloud-price scale that re-plan (debounced, not
   stored, POST /v1/plans/what-if) and show how the decision moves; each slider marks where the decision flips. */
"use strict";

const gpWhatIf = (() => {
  const { h, t, usd, num, pct, call } = gp;
  const { recommendation, usdPerUnit } = gpText;
  const DEBOUNCE_MS = 350;
  const DAYS_PER_MONTH = 30.44;

  /** 1, 2 or 5 times a power of ten, at least `value` (a slider's end in any currency: 1 USD is 150 JPY). */
  function niceCeil(value) {
    const power = 10 ** Math.floor(Math.log10(value));
    return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= value - 1e-12);
  }

  const decision = (plan) => (plan.buy.length ? plan.buy.map((b) => `${b.count} × ${b.name}`).join(", ") : "");

  /** Where each slider's decision flips, from a plan's thresholds (one input moved at a time). */
  function thresholds(plan) {
    const be = plan.break_even;
    let cloudScale = null;
    const offer = be.cloud_price_threshold_offer || "";
    const reference = (plan.alternatives.cloud_only?.cloud || []).concat(plan.cloud)
      .find((c) => offer.startsWith(`${c.provider}/${c.name}`));
    if (be.cloud_price_threshold_usd_per_hour !== null && reference) {
      cloudScale = be.cloud_price_threshold_usd_per_hour / reference.usd_per_hour;
    }
    return {
      utilisation: be.utilisation_threshold,
      electricity: be.electricity_threshold_usd_per_kwh,
      horizon: be.days === null ? null : be.days / DAYS_PER_MONTH,
      cloud: cloudScale,
    };
  }

  // electricity is in the plan's currency: its range is 0 to the worth of 1 USD/kWh there (at the plan's own rate)
  const SLIDERS = [
    { key: "utilisation", min: 0.01, max: 1, step: 0.01, show: pct, mark: "wi.mark_utilisation" },
    { key: "electricity", min: 0, max: 1, step: 0.01, show: (v) => t("wi.per_kwh", { price: usd(v) }),
      mark: "wi.mark_electricity" },
    { key: "horizon", min: 1, max: 72, step: 1, show: (v) => t("r.n_months", { n: num(v, 0) }), mark: "wi.mark_horizon" },
    { key: "cloud", min: 0.25, max: 2, step: 0.05, show: (v) => `${num(v, 2)}×`, mark: "wi.mark_cloud" },
  ];

  function card(plan, profile) {
    const section = h("section", { class: "card", id: "what-if", "aria-labelledby": "what-if-title" },
      h("h3", { id: "what-if-title" }, t("wi.title")));
    if (!profile) {
      section.append(h("p", { class: "muted" }, t("wi.no_profile")));
      return section;
    }
    const currency = plan.currency || "USD";
    const start = {
      utilisation: profile.demand?.utilisation,
      // the rate the plan priced owned energy at, in its currency (plans before issue 16: the profile's USD rate)
      electricity: plan.electricity?.price_per_kwh ?? profile.electricity_usd_per_kwh ?? 0.175,
      horizon: plan.horizon.periods,
      cloud: 1,
    };
    const perUnit = usdPerUnit(plan, currency);
    // any step, so the plan's own rate (Germany's 0.2723 EUR/kWh, a place's four decimals) is a position of the slider
    const top = perUnit ? niceCeil(1 / perUnit) : 1;
    const range = { electricity: { max: top, step: "any" } };
    const inputs = {};
    const marks = {};
    const outputs = {};
    const beyond = {};
    const fields = SLIDERS.map((s) => {
      const id = `wi-${s.key}`;
      const value = start[s.key];
      const disabled = value === undefined || value === null;
      const own = { ...s, ...(range[s.key] || {}) };
      const max = disabled ? own.max : Math.max(own.max, value);
      inputs[s.key] = h("input", { type: "range", id, min: s.min, max, step: own.step, value: disabled ? s.min : value,
        disabled, "aria-describedby": `${id}-mark ${id}-beyond` });
      inputs[s.key].dataset.max = max;
      // a span, not <output> (an implicit live "status" region): the slider's aria-valuetext says the value
      outputs[s.key] = h("span", { class: "wi-value", "aria-hidden": "true" },
        disabled ? t("wi.not_in_profile") : s.show(value));
      if (!disabled) inputs[s.key].setAttribute("aria-valuetext", s.show(value));
      marks[s.key] = h("span", { class: "wi-mark", id: `${id}-mark`, hidden: true });
      // a threshold off the slider's scale is said beside it, not left unmarked
      beyond[s.key] = h("span", { class: "wi-beyond muted small", id: `${id}-beyond`, hidden: true });
      return h("div", { class: "field wi-field", "data-slider": s.key },
        h("label", { for: id }, t(`wi.${s.key}`), " ", outputs[s.key]),
        h("div", { class: "wi-track" }, inputs[s.key], marks[s.key]), beyond[s.key]);
    });
    const result = h("div", { class: "wi-result", id: "what-if-result", "aria-live": "polite" },
      t("wi.hint"));
    section.append(h("p", { class: "muted small" }, t("wi.lead")), h("div", { class: "wi-sliders" }, fields), result);

    function placeMarks(plan) {
      const found = thresholds(plan);
      for (const s of SLIDERS) {
        const mark = marks[s.key];
        const value = found[s.key];
        const max = Number(inputs[s.key].dataset.max);
        const off = value === null || value === undefined || inputs[s.key].disabled ? null
          : value < s.min ? "low" : value > max ? "high" : null;
        const said = off === null ? null : { mark: t(s.mark, { value: s.show(value) }) };
        beyond[s.key].hidden = off === null;
        beyond[s.key].textContent = off === null ? "" : off === "low" ? t("wi.beyond_low", said)
          : t("wi.beyond_high", said);
        if (value === null || value === undefined || inputs[s.key].disabled || off !== null) {
          mark.hidden = true;
          mark.textContent = "";
          continue;
        }
        mark.hidden = false;
        mark.dataset.at = String((value - s.min) / (max - s.min));
        mark.textContent = t(s.mark, { value: s.show(value) });
        mark.title = mark.textContent;
        fit(mark);
      }
    }

    /** A mark's label centred on its threshold where there is room, else moved inwards until it ends at the
     *  track's edge (a French label is longer than a quarter of a phone's track); its tick stays on the threshold.
     *  Measured, so again whenever the track's width changes. */
    function fit(mark) {
      const track = mark.parentElement.clientWidth;
      if (!track || mark.hidden) return;
      mark.style.left = "0px";  // measured where it has the whole track (a label longer than that wraps)
      const width = Math.min(mark.offsetWidth, track);
      const point = Number(mark.dataset.at) * track;
      const left = Math.max(0, Math.min(track - width, point - width / 2));
      mark.style.left = `${left}px`;
      mark.style.setProperty("--tick", `${point - left}px`);
    }
    const resized = new ResizeObserver(() => Object.values(marks).forEach(fit));
    for (const mark of Object.values(marks)) resized.observe(mark.parentElement);

    let timer = null;
    let asked = 0;
    const baseDecision = decision(plan);

    async function replan() {
      const mine = ++asked;
      const moved = structuredClone(profile);
      if (!inputs.utilisation.disabled) moved.demand.utilisation = Number(inputs.utilisation.value);
      const rate = Number(inputs.electricity.value);
      if (currency === "USD") {
        moved.electricity_usd_per_kwh = rate;
      } else {  // a rate in the plan's currency: electricity.price_per_kwh (electricity_usd_per_kwh would win)
        delete moved.electricity_usd_per_kwh;
        moved.electricity = { ...(moved.electricity || {}), price_per_kwh: rate, currency };
      }
      moved.horizon_months = Number(inputs.horizon.value);
      delete moved.horizon_days;
      result.classList.add("busy");
      const answer = await call("/v1/plans/what-if", { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ profile: moved, cloud_price_scale: Number(inputs.cloud.value) }) });
      if (mine !== asked) return; // a newer position was asked meanwhile
      result.classList.remove("busy");
      if (!answer.ok) {
        result.replaceChildren(h("p", {}, answer.body?.errors?.[0]?.message || answer.body?.detail || t("s.failed")));
        return;
      }
      const got = answer.body;
      const changed = decision(got) !== baseDecision;
      const be = got.break_even;
      result.classList.toggle("changed", changed);
      result.replaceChildren(
        h("p", { class: "wi-decision", id: "what-if-decision" }, h("strong", {}, changed ? t("wi.changed") : t("wi.same")),
          " ", recommendation(got, moved)),
        h("p", {}, t("wi.total", { usd: usd(got.total_cost_usd) }), " · ",
          be.days === null ? t("wi.never") : t("wi.break_even", { n: num(be.days, 0) })));
      placeMarks(got);
    }

    for (const s of SLIDERS) {
      inputs[s.key].addEventListener("input", () => {
        outputs[s.key].textContent = s.show(Number(inputs[s.key].value));
        inputs[s.key].setAttribute("aria-valuetext", outputs[s.key].textContent);
        clearTimeout(timer);
        timer = setTimeout(replan, DEBOUNCE_MS);
      });
    }
    placeMarks(plan);
    return section;
  }

  return { card };
})();
