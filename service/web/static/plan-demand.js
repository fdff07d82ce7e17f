/* The demand's shape on the planning form (issue 13): how "N GPUs at u" is read, how long work may wait, job
   width and scaling, when owned machines are on, marketplaces, the series' resolution, and a usage log read by
   POST /v1/usage (nothing stored) and drawn by POST /v1/usage/chart.svg. A section of gpForm (plan-form.js). */
"use strict";

(() => {
  const { h, t, num, date, call, locale, chartUrl } = gp;
  const gpus = (value) => value.toLocaleString(locale, { maximumFractionDigits: 2 }); // 5.75 GPUs, not 5.8
  const { extend, FieldError, showErrors, clearErrors } = gpForm;
  const $ = (id) => document.getElementById(id);
  const form = $("plan-form");

  /* The readings of "N GPUs, busy u of the time" (solvers/base/demand_forms.py UtilisationDemand.reading), the default
     first; a new reading is one entry here plus its `ui_form.reading.<value>` text in each locale. */
  const READINGS = ["independent", "at_once", "average"];

  let logDemand = null; // the hourly demand of the usage log read (or of the plan shown), sent as the demand
  let chartBlob = null;

  const kind = () => form.elements.demand_kind.value;

  function showKind() {
    $("log-fields").hidden = kind() !== "log";
    $("horizon_months").disabled = kind() === "log"; // the log's span is the horizon
    $("reading-field").hidden = kind() !== "utilisation";
    $("resolution-field").hidden = kind() !== "series";
  }

  function showMachineHours() {
    $("machine-hours-field").hidden = $("machine_on").value !== "hours";
  }

  /** A plan's demand series summed up in the reader's formats (peak and hours are read off the values). */
  function describe(demand, summary) {
    const hours = demand.busy_gpus.length;
    const peak = Math.max(...demand.busy_gpus);
    if (!summary) return t("ui_form.log_from_plan", { hours: num(hours, 0), start: date(demand.start), peak: gpus(peak) });
    return t("ui_form.log_summary", { format: summary.source_format, hours: num(hours, 0), start: date(demand.start),
      peak: gpus(summary.peak), p90: gpus(summary.p90), mean: gpus(summary.mean), gpu_hours: num(summary.gpu_hours) });
  }

  /** The log's load-duration curves: the SVG is POSTed for (the demand is the body), then shown from a blob. */
  async function drawChart(demand) {
    let response;
    try {
      response = await fetch(chartUrl("/v1/usage/chart.svg"), { method: "POST", body: JSON.stringify(demand),
        headers: { "content-type": "application/json", accept: "image/svg+xml" } });
    } catch (_) {
      return;
    }
    if (!response.ok) return;
    if (chartBlob) URL.revokeObjectURL(chartBlob);
    chartBlob = URL.createObjectURL(await response.blob());
    $("log-chart").src = chartBlob;
    $("log-figure").hidden = false;
  }

  function useDemand(demand, summary) {
    logDemand = demand;
    $("log-summary").textContent = describe(demand, summary);
    drawChart(demand);
  }

  function forget() {
    logDemand = null;
    $("log-summary").textContent = "";
    $("log-figure").hidden = true;
    $("log-chart").removeAttribute("src");
  }

  /** Read the chosen file on the server; its errors (line and field) are shown at the file input. */
  async function readLog() {
    const file = $("log-file").files[0];
    forget();
    clearErrors();
    if (!file) return;
    $("log-summary").textContent = t("ui_form.log_reading");
    const body = { text: await file.text(), tz: $("log-tz").value.trim() || "UTC",
      reference_gpu: $("reference_gpu").value.trim() || "RTX 3090" };
    const answer = await call("/v1/usage", { method: "POST", body: JSON.stringify(body),
      headers: { "content-type": "application/json", accept: "application/json" } });
    if (answer.ok) {
      useDemand(answer.body.demand, answer.body.usage);
      return;
    }
    $("log-summary").textContent = "";
    const errors = Array.isArray(answer.body?.errors) && answer.body.errors.length ? answer.body.errors
      : [{ field: "text", message: answer.body?.detail || answer.body?.title || t("s.failed") }];
    // the file's own faults belong to the file input; `tz` to its field; the rest (e.g. reference_gpu) as named
    showErrors(errors.map((e) => ({ ...e, field: e.field === "text" ? "demand.busy_gpus" : e.field })),
      t("ui_form.log_failed"));
  }

  /* ---------- form <-> profile ---------- */

  /** Select `value` if the list offers it, else its first (default) choice; never a blank select. */
  function choose(id, value) {
    const select = $(id);
    select.value = [...select.options].some((o) => o.value === value) ? value : select.options[0].value;
  }

  function fill(rest, take) {
    choose("reading", take(rest, "demand.reading"));
    choose("patience", take(rest, "jobs.patience"));
    choose("runs", take(rest, "jobs.runs"));
    choose("load", take(rest, "jobs.load"));
    choose("interconnect", take(rest, "jobs.interconnect"));
    const across = take(rest, "jobs.cross_machine_efficiency");
    $("cross_machine_efficiency").value = across === undefined || across === null ? "" : String(across);
    const width = take(rest, "jobs.gpus_per_job");
    $("gpus_per_job").value = width === undefined || width === null ? "" : String(width);
    const spares = take(rest, "jobs.spare_replicas");
    $("spare_replicas").value = spares === undefined || spares === null || spares === 0 ? "" : String(spares);
    const scaling = take(rest, "jobs.scaling_efficiency");
    $("scaling_efficiency").value = scaling === undefined || scaling === null ? "" : String(scaling);
    const on = take(rest, "options.machine_on");
    choose("machine_on", typeof on === "number" ? "hours" : on);
    $("machine_hours").value = typeof on === "number" ? String(on) : "";
    $("allow_marketplace").checked = take(rest, "options.allow_marketplace") ?? true;
    $("allow_unverified_hosts").checked = take(rest, "options.allow_unverified_hosts") ?? true;
    choose("resolution", take(rest, "demand.resolution")); // an hourly demand's "hour" is not a series choice
    const busy = take(rest, "demand.busy_gpus");
    forget();
    $("log-file").value = "";
    if (Array.isArray(busy)) { // an hourly demand (a usage log) is kept whole and shown, not put in the JSON box
      const demand = { start: take(rest, "demand.start"), busy_gpus: busy,
        reference_gpu: $("reference_gpu").value.trim() };
      form.elements.demand_kind.value = "log";
      useDemand(demand, null);
    }
    showKind();
    showMachineHours();
  }

  function read(profile, { readNumber, kind: demandKind }) {
    const put = (obj, key, value) => { if (value !== undefined) obj[key] = value; };
    const demand = profile.demand;
    if (demandKind === "utilisation" && $("reading").value !== READINGS[0]) demand.reading = $("reading").value;
    if (demandKind === "series" && $("resolution").value !== "month") demand.resolution = $("resolution").value;
    if (demandKind === "log") {
      if (!logDemand) throw new FieldError("demand.busy_gpus", t("ui_form.log_needed"));
      profile.demand = { start: logDemand.start, busy_gpus: logDemand.busy_gpus, reference_gpu: demand.reference_gpu };
      delete profile.horizon_months; // the log's span is the horizon, as when a log is imported onto a profile
    }
    const jobs = {};
    if ($("patience").value !== "none") jobs.patience = $("patience").value;
    if ($("runs").value !== "until_done") jobs.runs = $("runs").value;
    if ($("load").value !== "replicas") jobs.load = $("load").value;
    if ($("interconnect").value !== "same_machine") jobs.interconnect = $("interconnect").value;
    put(jobs, "cross_machine_efficiency", readNumber("cross_machine_efficiency", "jobs.cross_machine_efficiency"));
    put(jobs, "gpus_per_job", readNumber("gpus_per_job", "jobs.gpus_per_job"));
    put(jobs, "scaling_efficiency", readNumber("scaling_efficiency", "jobs.scaling_efficiency"));
    put(jobs, "spare_replicas", readNumber("spare_replicas", "jobs.spare_replicas"));
    if (Object.keys(jobs).length) profile.jobs = jobs;
    const options = profile.options;
    const on = $("machine_on").value;
    if (on === "hours") {
      const hours = readNumber("machine_hours", "options.machine_on");
      if (hours === undefined) throw new FieldError("options.machine_on", t("f.enter_number"));
      options.machine_on = hours;
    } else if (on !== "when_working") {
      options.machine_on = on;
    }
    if (!$("allow_marketplace").checked) options.allow_marketplace = false;
    if (!$("allow_unverified_hosts").checked) options.allow_unverified_hosts = false;
  }

  $("reading").replaceChildren(...READINGS.map((value) => h("option", { value }, t(`ui_form.reading.${value}`))));
  for (const radio of form.elements.demand_kind) radio.addEventListener("change", showKind);
  $("machine_on").addEventListener("change", showMachineHours);
  $("log-file").addEventListener("change", readLog);
  $("log-tz").addEventListener("change", () => { if ($("log-file").files.length) readLog(); });
  extend({ fill, read });
  showKind();
})();
