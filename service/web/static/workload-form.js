/* The workload form (issue 14): describe the job (train / fine-tune / serve, model size, tokens, precision)
   instead of reference GPU-hours. Wraps gpForm.fillForm/readForm and gpResult.show, so the shared files only
   load this script (after plan-result.js, before plan.js) and include templates/_workload_form.html. */
"use strict";

const gpWorkloadForm = (() => {
  const { h, t, has, num, table } = gp;
  const $ = (id) => document.getElementById(id);
  const form = $("plan-form");
  const BILLION = 1e9;
  // "fine-tune a 13B model with LoRA on 2B tokens a month": the common case, one click away
  const COMMON = { kind: "fine_tune", method: "lora", model: { params_b: 13 }, tokens: 2e9, jobs_per_month: 1,
    precision: "bf16" };
  // inputs in the "more" box: workload key -> input id
  const MORE = { deadline_hours: "wf-deadline", max_gpus_per_job: "wf-max-gpus", sequence_length: "wf-sequence",
    lora_rank: "wf-rank", output_tokens: "wf-output", batch_size: "wf-batch", micro_batch: "wf-micro-batch",
    global_batch_tokens: "wf-global-batch", usable_memory_fraction: "wf-memory-fraction" };
  // the model's shape beyond its size (model.*), and the choices in "more" (empty: the compiler's default)
  const SHAPE = { layers: "wf-layers", hidden: "wf-hidden", heads: "wf-heads", kv_heads: "wf-kv-heads" };
  const CHOICES = { sharding: "wf-sharding", recompute: "wf-recompute" };

  const mode = () => form.elements.wf_mode.value;
  const classParts = () => [form.querySelector('[data-field="workload"]'), form.querySelector('fieldset[data-field="demand"]')];

  function showMode() {
    const job = mode() === "job";
    $("wf-fields").hidden = !job;
    for (const part of classParts()) if (part) part.hidden = job;
    showKind();
  }

  function showKind() {
    const kind = $("wf-kind").value;
    $("wf-method-field").hidden = kind !== "fine_tune";
    $("wf-train-fields").hidden = kind === "serve";
    $("wf-serve-fields").hidden = kind !== "serve";
  }

  const set = (id, value) => { $(id).value = value === undefined || value === null ? "" : String(value); };

  function readNumber(id, field, scale = 1) {
    const input = $(id);
    if (input.validity.badInput) throw new gpForm.FieldError(field, t("f.enter_number"));
    const raw = input.value.trim();
    return raw === "" ? undefined : Number(raw) * scale;
  }

  function merge(base, extra) {
    for (const [key, value] of Object.entries(extra || {})) {
      const nested = value && typeof value === "object" && !Array.isArray(value);
      if (nested && base[key] && typeof base[key] === "object") merge(base[key], value);
      else base[key] = value;
    }
    return base;
  }

  /** The workload object from the section's inputs (empty inputs are left out: the API's defaults apply). */
  function readJob() {
    const kind = $("wf-kind").value;
    const job = { kind, model: {} };
    const put = (key, value) => { if (value !== undefined) job[key] = value; };
    const params = readNumber("wf-params", "workload.model.params_b");
    if (params !== undefined) job.model.params_b = params;
    job.precision = $("wf-precision").value;
    if (kind === "fine_tune") job.method = $("wf-method").value;
    if (kind === "serve") {
      put("requests_per_second", readNumber("wf-rps", "workload.requests_per_second"));
      put("tokens", readNumber("wf-month-tokens", "workload.tokens", BILLION));
      put("context_length", readNumber("wf-context", "workload.context_length"));
    } else {
      put("tokens", readNumber("wf-tokens", "workload.tokens", BILLION));
      put("jobs_per_month", readNumber("wf-jobs", "workload.jobs_per_month"));
    }
    for (const [key, id] of Object.entries(MORE)) put(key, readNumber(id, `workload.${key}`));
    for (const [key, id] of Object.entries(SHAPE)) {
      const value = readNumber(id, `workload.model.${key}`);
      if (value !== undefined) job.model[key] = value;
    }
    for (const [key, id] of Object.entries(CHOICES)) {
      if ($(id).value !== gpForm.DEFAULTS[`workload.${key}`]) job[key] = $(id).value;
    }
    return job;
  }

  /** Put a workload object into the inputs; what they cannot show is returned (it goes to the JSON box). */
  function fillJob(workload) {
    const rest = structuredClone(workload);
    const take = (key) => { const value = rest[key]; delete rest[key]; return value; };
    const kind = take("kind") || "train";
    $("wf-kind").value = kind;
    const model = take("model") || {};
    set("wf-params", model.params_b);
    delete model.params_b;
    for (const [key, id] of Object.entries(SHAPE)) {
      set(id, model[key]);
      delete model[key];
    }
    if (Object.keys(model).length) rest.model = model;
    $("wf-precision").value = take("precision") || "bf16";
    $("wf-method").value = take("method") || "full";
    const tokens = take("tokens");
    const billions = tokens === undefined || tokens === null ? undefined : tokens / BILLION;
    set("wf-tokens", kind === "serve" ? undefined : billions);
    set("wf-month-tokens", kind === "serve" ? billions : undefined);
    set("wf-jobs", take("jobs_per_month"));
    set("wf-rps", take("requests_per_second"));
    set("wf-context", take("context_length"));
    for (const [key, id] of Object.entries(MORE)) {
      const value = take(key);
      set(id, value === gpForm.DEFAULTS[`workload.${key}`] ? undefined : value);  // a default shows as empty
    }
    for (const [key, id] of Object.entries(CHOICES)) $(id).value = take(key) || gpForm.DEFAULTS[`workload.${key}`];
    $("wf-more").open = [...Object.values(MORE), ...Object.values(SHAPE)].some((id) => $(id).value !== "")
      || Object.entries(CHOICES).some(([key, id]) => $(id).value !== gpForm.DEFAULTS[`workload.${key}`]);
    return gpForm.dropDefaults(rest, "workload.");
  }

  function clearJob() {
    fillJob({ kind: "train" });
  }

  /* ---------- wrapping the shared form ---------- */

  const baseFill = gpForm.fillForm;
  const baseRead = gpForm.readForm;

  gpForm.fillForm = (profile) => {
    const job = profile && profile.workload && typeof profile.workload === "object";
    if (!job) {
      baseFill(profile);
      clearJob();
      form.elements.wf_mode.value = "class";
      showMode();
      return;
    }
    const copy = structuredClone(profile);
    const workload = copy.workload;
    delete copy.workload;
    baseFill(copy);
    const rest = fillJob(workload);
    if (Object.keys(rest).length) { // what the inputs cannot hold stays in the JSON box, under "workload"
      const box = $("advanced");
      const extra = box.value.trim() ? JSON.parse(box.value) : {};
      extra.workload = rest;
      box.value = JSON.stringify(extra, null, 2);
      box.dispatchEvent(new Event("input"));
    }
    form.elements.wf_mode.value = "job";
    showMode();
  };

  gpForm.readForm = () => {
    const profile = baseRead();
    if (mode() !== "job") return profile;
    const fromBox = profile.workload && typeof profile.workload === "object" ? profile.workload : {};
    profile.workload = merge(readJob(), fromBox);
    delete profile.demand; // the workload form derives its demand per GPU type
    return profile;
  };

  /* ---------- the plan's per-GPU-type table ---------- */

  /** A workload parameter written for the reader (solvers/workload/reasons.py names them by what they hold). */
  function param(name, raw) {
    if (typeof raw !== "number") return String(raw ?? "–");
    if (name.endsWith("_gb")) return num(raw, 1);
    if (name === "hours") return num(raw, 0);
    return name === "deadline_hours" || name === "min_gb" ? num(raw) : num(raw, 0);
  }

  /** A coded sentence ({code, params, text}) from the catalogue under `prefix`; its English text for a code the
   *  page does not know, `fallback` for a plan made before the codes were answered. */
  function coded(prefix, found, fallback) {
    if (!found || !has(`${prefix}.${found.code}`)) return found ? found.text : fallback;
    const values = {};
    for (const [name, raw] of Object.entries(found.params || {})) values[name] = param(name, raw);
    return t(`${prefix}.${found.code}`, values);
  }

  /** How the job is laid out on a type: the ZeRO stage or tensor parallelism, then full recomputation and servers. */
  function sharding(row) {
    const found = row.sharding_notice;
    if (!found || !has(`wf.shard.${found.code}`)) return row.sharding || "–";
    const p = found.params || {};
    return coded("wf.shard", found, row.sharding) + (p.full_recomputation ? t("wf.shard.full_recomputation") : "")
      + (p.servers ? t("wf.shard.servers", { servers: num(p.servers, 0) }) : "");
  }

  function gpuTable(workload) {
    const columns = [{ label: t("wf.col_gpu"), name: true }, { label: t("wf.col_gpus_per_job"), num: true },
      { label: t("wf.col_hours"), num: true }, { label: t("wf.col_memory"), num: true },
      { label: t("wf.col_sharding"), wrap: true }, { label: t("wf.col_in_plan") },
      { label: t("wf.col_plan_widths") }, { label: t("wf.col_reason"), wrap: true }];
    const rows = [...workload.gpus].sort((a, b) => Number(b.in_plan) - Number(a.in_plan)).map((r) => [
      r.gpu + (r.extrapolated ? "\u00a0*" : ""), r.gpus_per_job ?? "–", num(r.hours_per_job, 1),
      num(r.memory_per_gpu_gb, 1), sharding(r), r.in_plan ? t("wf.yes") : t("wf.no"),
      (r.plan_widths || []).map((p) => num(p.gpus_per_job, 0)).join(", ") || "–",
      coded("wf.why", r.excluded_notice, r.excluded_reason || "")]);
    return table(t("wf.result_title"), columns, rows);
  }

  function card(plan) {
    const w = plan.workload;
    return h("section", { class: "card", id: "workload-gpus", "aria-labelledby": "workload-gpus-title" },
      h("h3", { id: "workload-gpus-title" }, t("wf.result_title")),
      h("p", {}, w.plan_gpus_per_job === null || w.plan_gpus_per_job === undefined
        ? t("wf.result_summary_mixed", { width: num(w.reference_gpus_per_job ?? 1, 0), gpu: w.reference_gpu,
          hours: num(w.reference_gpu_hours_per_month, 1) })
        : t("wf.result_summary", { width: w.plan_gpus_per_job, gpu: w.reference_gpu,
          hours: num(w.reference_gpu_hours_per_month, 1) })),
      h("div", { class: "scroll-y", id: "wf-table" }, gpuTable(w)),
      h("p", { class: "muted small" }, t("wf.extrapolated")));
  }

  const baseShow = gpResult.show;
  gpResult.show = async (plan, profile) => {
    await baseShow(plan, profile);
    if (!plan.workload) return;
    const result = $("result");
    result.insertBefore(card(plan), result.children[1] || null); // after the recommendation
  };

  /** The common case in one click: a fresh workload-form profile that keeps the horizon, electricity and options
      typed so far (a class-form profile's demand, prices and throughput overrides do not carry over). */
  $("wf-common").addEventListener("click", () => {
    let current = {};
    try {
      current = baseRead();
    } catch (_) { /* an unreadable field: start from the defaults */ }
    const profile = { workload: COMMON, horizon_months: current.horizon_months || 24 };
    if (current.electricity_usd_per_kwh !== undefined) profile.electricity_usd_per_kwh = current.electricity_usd_per_kwh;
    if (current.options) profile.options = current.options;
    gpForm.fillForm(profile);
    $("wf-params").focus();
  });
  for (const radio of form.elements.wf_mode) radio.addEventListener("change", showMode);
  $("wf-kind").addEventListener("change", showKind);

  return { readJob, fillJob };
})();
