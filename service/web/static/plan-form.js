/* The planning form: profile <-> fields, and API errors shown at the fields they name. */
"use strict";

const gpForm = (() => {
  const { h, t, num, date } = gp;
  const $ = (id) => document.getElementById(id);
  const form = $("plan-form");

  /* ---------- form <-> profile ---------- */

  /** Remove `path` ("a.b.c") from obj and return its value (undefined if absent). */
  function take(obj, path) {
    const keys = path.split(".");
    let node = obj;
    for (const key of keys.slice(0, -1)) {
      if (!node || typeof node !== "object") return undefined;
      node = node[key];
    }
    if (!node || typeof node !== "object") return undefined;
    const last = keys[keys.length - 1];
    const value = node[last];
    delete node[last];
    return value;
  }

  function prune(obj) {
    for (const [key, value] of Object.entries(obj)) {
      if (value && typeof value === "object" && !Array.isArray(value)) {
        prune(value);
        if (Object.keys(value).length === 0) delete obj[key];
      }
    }
    return obj;
  }

  function deepMerge(base, extra) {
    for (const [key, value] of Object.entries(extra)) {
      const isObject = value && typeof value === "object" && !Array.isArray(value);
      if (isObject && base[key] && typeof base[key] === "object" && !Array.isArray(base[key])) {
        deepMerge(base[key], value);
      } else {
        base[key] = value;
      }
    }
    return base;
  }

  /* Every field's default (service/web/form_schema.py): a stored profile spells out every default; a default the
     form has no input for is left out of the JSON box (sending it or not means the same). */
  const DEFAULTS = JSON.parse($("profile-defaults").textContent);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  /** `obj` without the values equal to their defaults (paths of list items, "a[].b", are the quote tables'). */
  function dropDefaults(obj, prefix = "") {
    for (const [path, value] of Object.entries(DEFAULTS)) {
      if (path.includes("[]") || !path.startsWith(prefix)) continue;
      const keys = path.slice(prefix.length).split(".");
      let node = obj;
      for (const key of keys.slice(0, -1)) node = node && typeof node === "object" ? node[key] : undefined;
      const last = keys[keys.length - 1];
      if (node && typeof node === "object" && last in node && same(node[last], value)) delete node[last];
    }
    return obj;
  }

  /** Put `value` at `path` ("a.b.c") of obj, making the objects on the way. */
  function putPath(obj, path, value) {
    const keys = path.split(".");
    let node = obj;
    for (const key of keys.slice(0, -1)) node = (node[key] && typeof node[key] === "object") ? node[key] : (node[key] = {});
    node[keys[keys.length - 1]] = value;
  }

  /* Sections of the form in their own modules (e.g. plan-demand.js) register {fill(rest), read(profile)}: fill
     takes its fields out of the profile (what is left goes to the JSON box), read adds them to the request. */
  const sections = [];
  const extend = (section) => { sections.push(section); };

  const setValue = (id, value) => { $(id).value = value === undefined || value === null ? "" : String(value); };

  /** A section of plain inputs, each bound to one profile path: `fields` are {id, path, kind} with kind "number"
   *  (empty: the default), "percent" (typed in %, sent as a fraction), "check" (sent when it differs from the
   *  default), "list" (comma-separated names), "text", "date" or "select". Number boxes show the default as their
   *  placeholder. `after(profile)` may adjust the request (e.g. a field whose currency is the plan's). */
  function fieldSection(fields, after) {
    const fraction = (v) => Number((v / 100).toPrecision(12));
    const percent = (v) => String(Number((v * 100).toPrecision(12)));
    for (const f of fields) {
      const input = $(f.id);
      const fallback = DEFAULTS[f.path];
      if (input.type === "number" && fallback !== null && fallback !== undefined) {
        input.placeholder = f.kind === "percent" ? percent(fallback) : String(fallback);
      }
    }
    extend({
      fill(rest, takeFrom) {
        for (const f of fields) {
          const value = takeFrom(rest, f.path);
          const input = $(f.id);
          const fallback = DEFAULTS[f.path];
          if (f.kind === "check") input.checked = value ?? fallback ?? false;
          else if (value === undefined || value === null || same(value, fallback)) {
            input.value = f.kind === "select" ? String(fallback ?? input.options[0].value) : "";
          } else if (f.kind === "percent") input.value = percent(value);
          else if (f.kind === "list") input.value = value.join(", ");
          else input.value = String(value);
        }
      },
      read(profile, ctx) {
        for (const f of fields) {
          const input = $(f.id);
          const fallback = DEFAULTS[f.path];
          let value;
          if (f.kind === "check") value = input.checked === (fallback ?? false) ? undefined : input.checked;
          else if (f.kind === "number" || f.kind === "percent") {
            value = ctx.readNumber(f.id, f.path);
            if (value !== undefined && f.kind === "percent") value = fraction(value);
          } else if (f.kind === "list") {
            const names = input.value.split(",").map((v) => v.trim()).filter(Boolean);
            value = names.length ? names : undefined;
          } else {
            value = input.value.trim() || undefined;
            if (f.kind === "select" && same(value, fallback)) value = undefined;
          }
          if (value !== undefined) putPath(profile, f.path, value);
        }
        if (after) after(profile);
      },
    });
  }

  /** The same for sections whose `read(profile, readNumber)` needs only the number reader (e.g. plan-place.js). */
  const addSection = (section) => extend({ fill: section.fill, read: (profile, ctx) => section.read(profile, ctx.readNumber) });

  /** Fields the form has go into it; everything else goes into the JSON box, so nothing is lost. */
  function fillForm(profile) {
    const rest = structuredClone(profile);
    $("workload").value = take(rest, "workload") || "transformer_training";
    setValue("min_gpu_memory_gb", take(rest, "min_gpu_memory_gb"));
    const series = take(rest, "demand.series");
    form.elements.demand_kind.value = Array.isArray(series) ? "series" : "utilisation";
    setValue("reference_gpu", take(rest, "demand.reference_gpu") || "RTX 3090");
    setValue("gpus", take(rest, "demand.gpus") ?? (Array.isArray(series) ? 1 : ""));
    setValue("utilisation", take(rest, "demand.utilisation"));
    $("series").value = Array.isArray(series) ? series.map((p) => `${p.month ?? p.start} ${p.reference_gpu_hours}`
      + (p.gpus_at_once === undefined || p.gpus_at_once === null ? "" : ` ${p.gpus_at_once}`)).join("\n") : "";
    setValue("horizon_months", take(rest, "horizon_months"));
    setValue("electricity_usd_per_kwh", take(rest, "electricity_usd_per_kwh"));
    setValue("max_capex_usd", take(rest, "options.max_capex_usd"));
    $("allow_used").checked = take(rest, "options.allow_used") ?? true;
    $("allow_spot").checked = take(rest, "options.allow_spot") ?? false;
    for (const section of sections) section.fill(rest, take);
    prune(dropDefaults(rest));
    $("advanced").value = Object.keys(rest).length ? JSON.stringify(rest, null, 2) : "";
    showDemandKind();
    describeAdvanced();
    clearErrors();
  }

  class FieldError extends Error {
    constructor(field, message) {
      super(message);
      this.field = field;
    }
  }

  /** A number input: empty is left out (the API's default applies); text the browser cannot read is an error. */
  function readNumber(id, field) {
    const input = $(id);
    if (input.validity.badInput) throw new FieldError(field, t("f.enter_number"));
    const raw = input.value.trim();
    return raw === "" ? undefined : Number(raw);
  }

  /** "2027-03 2000" per line (also "2027-03: 2000" or "2027-03,2000"); a day "2027-03-01 500" (week and day
   *  resolutions); an optional third number is the GPUs busy at once. The API validates the values. */
  function readSeries(text) {
    const number = (raw) => (raw === undefined || Number.isNaN(Number(raw)) ? (raw ?? null) : Number(raw));
    return text.split("\n").map((line) => line.trim()).filter(Boolean).map((line) => {
      const [period, hours, gpus] = line.split(/[\s,;:=]+/);
      const point = { [/^\d{4}-\d{2}-\d{2}$/.test(period) ? "start" : "month"]: period,
        reference_gpu_hours: number(hours) };
      if (gpus !== undefined) point.gpus_at_once = number(gpus);
      return point;
    });
  }

  /** The profile the form's controls say (the JSON box left out). */
  function readControls() {
    const profile = { workload: $("workload").value };
    const put = (obj, key, value) => { if (value !== undefined) obj[key] = value; };
    put(profile, "min_gpu_memory_gb", readNumber("min_gpu_memory_gb", "min_gpu_memory_gb"));
    const demand = { reference_gpu: $("reference_gpu").value.trim() };
    const kind = form.elements.demand_kind.value;
    if (kind === "series") {
      demand.series = readSeries($("series").value);
    } else if (kind === "utilisation") {
      put(demand, "gpus", readNumber("gpus", "demand.gpus"));
      put(demand, "utilisation", readNumber("utilisation", "demand.utilisation"));
    }
    profile.demand = demand;
    put(profile, "horizon_months", readNumber("horizon_months", "horizon_months"));
    put(profile, "electricity_usd_per_kwh", readNumber("electricity_usd_per_kwh", "electricity_usd_per_kwh"));
    const options = { allow_used: $("allow_used").checked, allow_spot: $("allow_spot").checked };
    put(options, "max_capex_usd", readNumber("max_capex_usd", "options.max_capex_usd"));
    profile.options = options;
    for (const section of sections) section.read(profile, { readNumber, kind });
    return profile;
  }

  const readForm = () => deepMerge(readControls(), readAdvanced());

  function readAdvanced() {
    const text = $("advanced").value.trim();
    if (!text) return {};
    let extra;
    try {
      extra = JSON.parse(text);
    } catch (error) {
      throw new FieldError("*", t("f.bad_json", { error: error.message }));
    }
    if (!extra || typeof extra !== "object" || Array.isArray(extra)) {
      throw new FieldError("*", t("f.json_object"));
    }
    return extra;
  }

  /** A value at `path` ("a.b.c") of obj, or undefined. */
  function getPath(obj, path) {
    return path.split(".").reduce((node, key) => (node && typeof node === "object" ? node[key] : undefined), obj);
  }

  const SHOWN = 8;  // "More of the profile" names this many of its values on its closed line, then "…"

  /** What a field of "More of the profile" holds, as its control shows it: a quote table's count of quotes, yes or
   *  no, a choice's words, a date as the reader writes it, the text typed (a percent as typed, in %). */
  function shownValue(el, value) {
    if (Array.isArray(value) && value.some((v) => v && typeof v === "object")) return num(value.length, 0);
    const control = el.querySelector("input, select, textarea");
    if (!control) return String(value);
    if (control.type === "checkbox") return control.checked ? t("f.yes") : t("f.no");
    if (control.tagName === "SELECT") return control.selectedOptions[0]?.textContent.trim() ?? String(value);
    if (control.type === "date") return date(control.value);
    if (control.type === "number") return Number(control.value).toLocaleString(gp.locale, { maximumFractionDigits: 6 });
    return control.value.trim().split("\n").map((line) => line.trim()).filter(Boolean).join("; ");
  }

  /** The summary line of "More of the profile" says what is set inside it, closed or open: each field whose value
   *  differs from the API's default, by its label, with its value ("PUE of your machine room: 1"), and the JSON
   *  box's own keys; a reader of a permalink sees that the plan's own prices or options are in there. */
  function describeAdvanced() {
    let controls;
    try {
      controls = readControls();
    } catch (_) {
      return;  // a box being typed in that does not read yet: the line stays as it was
    }
    const items = [];
    for (const el of $("advanced-box").querySelectorAll("[data-field]")) {
      const path = el.dataset.field;
      if (path === "*" || el.closest("[hidden]")) continue;
      const value = getPath(controls, path);
      const empty = value === undefined || value === null || (typeof value === "object" && !Object.keys(value).length);
      if (empty || (path in DEFAULTS && same(value, DEFAULTS[path]))) continue;
      const name = el.querySelector("label, h4")?.textContent.trim() || path;
      items.push(t("f.set_item", { name, value: shownValue(el, value) }));
    }
    let extra = [];
    let label = "";
    try {
      extra = Object.keys(readAdvanced()).map((key) => t("f.json_key", { key }));
    } catch (_) {
      label = `(${t("f.not_json")})`;
    }
    const all = [...items, ...extra];
    if (!label) {
      label = all.length ? `(${t("f.n_set", { n: num(all.length, 0), keys: all.slice(0, SHOWN).join(t("f.set_sep"))
        + (all.length > SHOWN ? t("f.set_sep") + "…" : "") })})` : `(${t("f.nothing_set")})`;
    }
    $("advanced-count").textContent = label;
  }

  function showDemandKind() {
    const kind = form.elements.demand_kind.value;
    $("utilisation-fields").hidden = kind !== "utilisation";
    $("series-fields").hidden = kind !== "series";
  }

  /* ---------- errors at the fields they name ---------- */

  const LABELS = new Map();

  /** The form element an API error path belongs to: the longest `data-field` that is a prefix of it. */
  function fieldFor(path) {
    let best = null;
    for (const el of form.querySelectorAll("[data-field]")) {
      const key = el.dataset.field;
      if (key === "*" || el.closest("[hidden]")) continue;
      const matches = path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);
      if (matches && (!best || key.length > best.dataset.field.length)) best = el;
    }
    if (best) return best;
    if (path === "body" || path === "") return null;
    $("advanced-box").open = true; // a field the form has no input for: it came from the JSON box
    return form.querySelector('[data-field="*"]');
  }

  function clearErrors() {
    for (const el of form.querySelectorAll(".field-error")) el.remove();
    for (const el of form.querySelectorAll(".has-error")) el.classList.remove("has-error");
    for (const input of form.querySelectorAll("[aria-invalid]")) {
      input.removeAttribute("aria-invalid");
      const original = input.dataset.describedby;
      if (original) input.setAttribute("aria-describedby", original);
      else input.removeAttribute("aria-describedby");
    }
    const summary = $("form-errors");
    summary.hidden = true;
    summary.replaceChildren();
  }

  function showErrors(errors, title) {
    clearErrors();
    const items = [];
    let first = null;
    errors.forEach((error, i) => {
      const target = fieldFor(error.field || "body");
      const input = target ? target.querySelector("input:not([type=radio]), select, textarea") : null;
      const id = `field-error-${i}`;
      if (target) {
        target.classList.add("has-error");
        const shown = error.field && target.dataset.field === "*" ? `${error.field}: ${error.message}` : error.message;
        target.append(h("p", { class: "field-error", id }, shown));
      }
      if (input) {
        if (!input.hasAttribute("aria-invalid")) input.dataset.describedby = input.getAttribute("aria-describedby") || "";
        input.setAttribute("aria-invalid", "true");
        input.setAttribute("aria-describedby", `${input.getAttribute("aria-describedby") || ""} ${id}`.trim());
        first = first || input;
      }
      const label = (input && LABELS.get(input.id)) || error.field || "request";
      items.push(h("li", {}, input ? h("a", { href: `#${input.id}` }, label) : label, `: ${error.message}`));
    });
    const summary = $("form-errors");
    summary.replaceChildren(h("p", {}, h("strong", {}, title || t("f.check_fields"))), h("ul", {}, items));
    summary.hidden = false;
    if (first) first.focus();
  }

  function showProblem(body) {
    const summary = $("form-errors");
    summary.replaceChildren(h("p", {}, h("strong", {}, body?.title || t("s.failed"))), h("p", {}, body?.detail || ""));
    summary.hidden = false;
  }

  for (const label of form.querySelectorAll("label[for]")) LABELS.set(label.htmlFor, label.textContent.trim());
  for (const radio of form.elements.demand_kind) radio.addEventListener("change", showDemandKind);
  // any change inside "More of the profile" (a quote added or removed is a click) updates its summary line
  for (const kind of ["input", "change", "click"]) $("advanced-box").addEventListener(kind, describeAdvanced);

  return { fillForm, readForm, FieldError, showErrors, clearErrors, showProblem, extend, addSection, fieldSection,
    dropDefaults, DEFAULTS };
})();
