/* The planning page's wiring: examples, submit to POST /v1/plans, permalinks (?plan=id). */
"use strict";

(() => {
  const { h, t, call } = gp;
  const { fillForm, readForm, FieldError, showErrors, clearErrors, showProblem } = gpForm;
  const $ = (id) => document.getElementById(id);
  const form = $("plan-form");
  const examples = JSON.parse($("examples").textContent);

  async function submit(event) {
    event.preventDefault();
    clearErrors();
    let profile;
    try {
      profile = readForm();
    } catch (error) {
      if (error instanceof FieldError) {
        showErrors([{ field: error.field, message: error.message }], t("s.check_field"));
        return;
      }
      throw error;
    }
    const button = $("plan-button");
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    $("status").textContent = t("s.planning");
    const answer = await call("/v1/plans", { method: "POST", headers: { "content-type": "application/json",
      accept: "application/json" }, body: JSON.stringify(profile) });
    button.disabled = false;
    form.removeAttribute("aria-busy");
    if (answer.ok) {
      history.replaceState(null, "", `?plan=${encodeURIComponent(answer.body.id)}`);
      await gpResult.show(answer.body, profile);
      $("status").textContent = t("s.ready");
      $("recommendation-title").focus();
    } else if (answer.body && Array.isArray(answer.body.errors) && answer.body.errors.length) {
      $("status").textContent = t("s.refused", { title: answer.body.title || "422" });
      const errors = answer.body.errors.map((e) => (answer.body.nearest_feasible !== undefined
        && answer.body.nearest_feasible !== null ? { ...e, message: `${e.message} (${t("s.nearest")}: `
          + `${answer.body.nearest_feasible})` } : e));
      showErrors(errors, answer.body.title);
    } else {
      $("status").textContent = answer.body?.title || t("s.failed");
      showProblem(answer.body);
    }
  }

  async function loadGpuNames() {
    const answer = await call("/v1/gpus");
    if (!answer.ok) return;
    const names = answer.body.map((g) => g.name).sort((a, b) => a.localeCompare(b));
    $("gpu-names").replaceChildren(...names.map((name) => h("option", { value: name })));
  }

  async function loadPermalink() {
    const id = new URLSearchParams(location.search).get("plan");
    if (!id) return;
    const [answer, profile] = await Promise.all([call(`/v1/plans/${encodeURIComponent(id)}`),
      call(`/v1/plans/${encodeURIComponent(id)}/profile`)]);
    if (answer.ok) {
      if (profile.ok) {
        fillForm(profile.body); // the form holds this plan's own inputs, not the example
        startedFrom(answer.body, profile.body);
      }
      await gpResult.show(answer.body, profile.ok ? profile.body : null);
      $("status").textContent = t("s.permalink", { id,
        recommendation: gpText.recommendation(answer.body, profile.ok ? profile.body : null) });
    } else {
      $("status").textContent = t("s.not_found", { id });
    }
  }

  /** "Start from" names the plan whose inputs fill the form (its short id, when it was made and its total), so a
   *  permalink does not claim to show an example; choosing it again puts that plan's inputs back. */
  function startedFrom(plan, profile) {
    const select = $("example");
    const value = `plan:${plan.id}`;
    planMade.set(plan.id, plan.created_at);
    select.querySelector(`option[value="${CSS.escape(value)}"]`)?.remove();
    const label = t("form.from_plan", { id: plan.id.slice(0, 8), total: gp.money(plan.total_cost_usd, plan.currency) });
    select.prepend(h("option", { value, "data-plan": plan.id }, label));
    select.value = value;
    planProfiles.set(value, profile);
    showOrigin();
  }

  /** Under "Start from": whose inputs the form holds when it holds a stored plan's (its whole id and its day). */
  function showOrigin() {
    const option = $("example").selectedOptions[0];
    const id = option?.dataset.plan;
    const hint = $("example-hint");
    hint.hidden = !id;
    hint.textContent = id ? t("form.from_plan_hint", { id, when: gp.dateTime(planMade.get(id)) }) : "";
  }
  const planMade = new Map();
  const planProfiles = new Map();

  function init() {
    const select = $("example");
    select.replaceChildren(...examples.map((e) => h("option", { value: e.id }, e.label)));
    select.addEventListener("change", () => {
      const chosen = examples.find((e) => e.id === select.value)
        || (planProfiles.has(select.value) && { profile: planProfiles.get(select.value),
          label: select.selectedOptions[0].textContent });
      if (chosen) {
        fillForm(chosen.profile);
        $("status").textContent = t("s.filled", { label: chosen.label });
      }
      showOrigin();
    });
    form.addEventListener("submit", submit);
    fillForm(examples[0].profile);
    loadGpuNames();
    loadPermalink();
  }

  init();
})();
