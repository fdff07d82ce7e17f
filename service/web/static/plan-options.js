/* Planning options under "more" (issue 17: every input of the API reaches the form): what may be bought or
 * rented, resale, limits, where the cloud may be, power and availability figures, a horizon in days, the first
 * day of demand and measured throughput. Each box left empty keeps the API's default (shown as its placeholder). */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  gpForm.fieldSection([
    { id: "opt_allow_buy", path: "options.allow_buy", kind: "check" },
    { id: "opt_allow_cloud", path: "options.allow_cloud", kind: "check" },
    { id: "opt_resale", path: "options.resale", kind: "check" },
    { id: "opt_horizon_days", path: "horizon_days", kind: "number" },
    { id: "opt_providers", path: "options.providers", kind: "list" },
    { id: "opt_regions", path: "options.regions", kind: "list" },
    { id: "opt_max_owned_gpus", path: "options.max_owned_gpus", kind: "number" },
    { id: "opt_availability", path: "options.availability", kind: "number" },
    { id: "opt_pue", path: "options.pue", kind: "number" },
    { id: "opt_host_watts", path: "options.host_watts_per_working_gpu", kind: "number" },
    { id: "opt_cloud_pue", path: "options.cloud_pue", kind: "number" },
    { id: "opt_spot_overhead", path: "options.spot_interruption_overhead", kind: "percent" },
    { id: "opt_resale_decline", path: "options.resale_decline_per_year", kind: "percent" },
    { id: "opt_resale_fee", path: "options.resale_fee", kind: "percent" },
  ]);

  /** "RTX 4090 = 1.9" per line (also "RTX 4090: 1.9"): measured throughput relative to the reference GPU. */
  function readOverrides(text) {
    const found = {};
    for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
      const at = Math.max(line.lastIndexOf("="), line.lastIndexOf(":"));
      const raw = at > 0 ? line.slice(at + 1).trim() : "";
      if (at <= 0 || raw === "" || Number.isNaN(Number(raw))) {
        throw new gpForm.FieldError("throughput_overrides", gp.t("opt.overrides_bad", { line }));
      }
      found[line.slice(0, at).trim()] = Number(raw);
    }
    return found;
  }

  gpForm.extend({
    fill(rest, take) {
      const overrides = take(rest, "throughput_overrides") || {};
      $("opt_overrides").value = Object.entries(overrides).map(([gpu, ratio]) => `${gpu} = ${ratio}`).join("\n");
      // a usage log's first hour is its own (plan-demand.js); a utilisation demand's first day is this box
      const start = rest.demand && "busy_gpus" in rest.demand ? null : take(rest, "demand.start");
      $("opt_demand_start").value = start || "";
    },
    read(profile, ctx) {
      const overrides = readOverrides($("opt_overrides").value);
      if (Object.keys(overrides).length) profile.throughput_overrides = overrides;
      const start = $("opt_demand_start").value;
      // the first day of a utilisation demand (series and logs carry their own dates)
      if (start && ctx.kind === "utilisation") profile.demand.start = start;
    },
  });
})();
