/* Plans under uncertainty on the planning form (issue 32): the profile's `uncertainty` option. Ticking the box
 * plans for many futures with the API's defaults; any box filled does too. Growth, trends, spreads and alpha are
 * typed in percent and sent as fractions; the demand's [low, high] scale is two boxes; decision months a list. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  gpForm.fieldSection([
    { id: "unc_scenarios", path: "uncertainty.scenarios", kind: "number" },
    { id: "unc_seed", path: "uncertainty.seed", kind: "number" },
    { id: "unc_objective", path: "uncertainty.objective", kind: "select" },
    { id: "unc_risk_weight", path: "uncertainty.risk_weight", kind: "number" },
    { id: "unc_alpha", path: "uncertainty.alpha", kind: "percent" },
    { id: "unc_sigma", path: "uncertainty.demand.sigma", kind: "number" },
    { id: "unc_growth", path: "uncertainty.demand.growth_per_year", kind: "percent" },
    { id: "unc_growth_spread", path: "uncertainty.demand.growth_spread", kind: "percent" },
    { id: "unc_cloud_trend", path: "uncertainty.cloud_price_trend.per_year", kind: "percent" },
    { id: "unc_cloud_spread", path: "uncertainty.cloud_price_trend.spread", kind: "percent" },
    { id: "unc_electricity_spread", path: "uncertainty.electricity.spread", kind: "percent" },
    { id: "unc_resale_spread", path: "uncertainty.resale.spread", kind: "percent" },
  ]);

  /** Whether an object holds nothing but empty objects (what the sections leave of an option they took). */
  const hollow = (node) => node && typeof node === "object" && !Array.isArray(node)
    && Object.values(node).every((v) => hollow(v));

  gpForm.extend({
    fill(rest, take) {
      const given = rest.uncertainty !== undefined && rest.uncertainty !== null;
      $("unc_on").checked = given;
      const scale = take(rest, "uncertainty.demand.scale");
      $("unc_scale_low").value = scale ? String(scale[0]) : "";
      $("unc_scale_high").value = scale ? String(scale[1]) : "";
      const months = take(rest, "uncertainty.decision_months");
      $("unc_months").value = Array.isArray(months) ? months.join(", ") : "";
      if (given && hollow(rest.uncertainty)) delete rest.uncertainty;
      else if (rest.uncertainty === null) delete rest.uncertainty;
    },
    read(profile, ctx) {
      const low = ctx.readNumber("unc_scale_low", "uncertainty.demand.scale");
      const high = ctx.readNumber("unc_scale_high", "uncertainty.demand.scale");
      if (low !== undefined || high !== undefined) {
        if (low === undefined || high === undefined) {
          throw new gpForm.FieldError("uncertainty.demand.scale", gp.t("unc.scale_both"));
        }
        profile.uncertainty ||= {};
        profile.uncertainty.demand = { ...(profile.uncertainty.demand || {}), scale: [low, high] };
      }
      const text = $("unc_months").value.trim();
      if (text) {
        const months = text.split(",").map((v) => v.trim()).filter(Boolean).map(Number);
        if (months.some((m) => !Number.isInteger(m))) {
          throw new gpForm.FieldError("uncertainty.decision_months", gp.t("unc.months_bad"));
        }
        profile.uncertainty ||= {};
        profile.uncertainty.decision_months = months;
      }
      if ($("unc_on").checked) profile.uncertainty ||= {};
    },
  });
})();
