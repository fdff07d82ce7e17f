/* Money over time on the planning form (issue 16 via issue 17): commitments toggle, discount rate, financing and
 * the running costs of owned hardware. Rates are typed in percent (what people quote) and sent as fractions. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const OPEX = [
    ["opex_colocation", "colocation_usd_per_kw_month"],
    ["opex_maintenance", "maintenance_usd_per_gpu_year"],
    ["opex_staff_hours", "staff_hours_per_month"],
    ["opex_staff_rate", "staff_usd_per_hour"],
    ["opex_staff_per_gpu", "staff_usd_per_gpu_month"],
    ["opex_storage_networking", "storage_networking_usd_per_month"],
  ];

  /** A fraction shown as a percent without binary noise (0.07 -> "7", not "7.000000000000001"). */
  const percent = (value) => (typeof value === "number" ? String(Number((value * 100).toPrecision(12))) : "");
  const plain = (value) => (value === undefined || value === null ? "" : String(value));
  /** A percent read back as a fraction, or undefined when the box is empty (the API default applies). */
  const fraction = (value) => (value === undefined ? undefined : Number((value / 100).toPrecision(12)));

  /** Remove an object left empty once the form took its fields, so it does not show in the JSON box. */
  function dropIfEmpty(parent, key) {
    const node = parent && parent[key];
    if (node && typeof node === "object" && Object.keys(node).length === 0) delete parent[key];
  }

  gpForm.addSection({
    fill(rest, take) {
      const commit = take(rest, "options.allow_commitments");
      $("allow_commitments").checked = commit === true;
      // false ("never, even with my own quotes") differs from the default null: the JSON box keeps it.
      if (commit === false) rest.options.allow_commitments = false;
      const discount = take(rest, "options.discount_rate");
      $("discount_rate_pct").value = discount ? percent(discount) : "";  // 0 is the default: an empty box
      $("financing_rate_pct").value = percent(take(rest, "options.financing.annual_rate"));
      $("financing_term_months").value = plain(take(rest, "options.financing.term_months"));
      $("financing_down_pct").value = percent(take(rest, "options.financing.down_payment"));
      for (const [id, key] of OPEX) $(id).value = plain(take(rest, `options.opex.${key}`) || null);  // 0: the default
      $("opex_currency").value = take(rest, "options.opex.currency") || "USD";
      // The stored profile spells out every opex default (0); zeros add nothing, so keep them out of the JSON box.
      const opex = rest.options && rest.options.opex;
      if (opex && typeof opex === "object") {
        for (const [key, value] of Object.entries(opex)) if (value === 0) delete opex[key];
      }
      dropIfEmpty(rest.options, "financing");
      dropIfEmpty(rest.options, "opex");
    },
    read(profile, readNumber) {
      const options = profile.options;
      if ($("allow_commitments").checked) options.allow_commitments = true;
      const discount = fraction(readNumber("discount_rate_pct", "options.discount_rate"));
      if (discount !== undefined) options.discount_rate = discount;
      const financing = {
        annual_rate: fraction(readNumber("financing_rate_pct", "options.financing.annual_rate")),
        term_months: readNumber("financing_term_months", "options.financing.term_months"),
        down_payment: fraction(readNumber("financing_down_pct", "options.financing.down_payment")),
      };
      // Any financing box filled sends the object; a missing required part comes back as the API's 422.
      const given = Object.entries(financing).filter(([, v]) => v !== undefined);
      if (given.length) options.financing = { ...(options.financing || {}), ...Object.fromEntries(given) };
      const opex = {};
      for (const [id, key] of OPEX) {
        const value = readNumber(id, `options.opex.${key}`);
        if (value !== undefined) opex[key] = value;
      }
      if (Object.keys(opex).length && $("opex_currency").value !== "USD") opex.currency = $("opex_currency").value;
      if (Object.keys(opex).length) options.opex = { ...(options.opex || {}), ...opex };
    },
  });
})();

/* Money over time in the result: the breakdown rows issue 16 adds, present value next to the nominal total,
 * the commitments bought and the month-by-month cash flows (collapsed: 36+ rows). Money is already in the plan's
 * currency (the API converts it); gp.usd formats it in that currency and the reader's locale. */
(() => {
  const { h, t, usd, pct, table } = gp;

  function breakdown(plan) {
    const c = plan.costs || {};
    const lines = [[t("fin_form.r_commitments"), "commitments_usd"], [t("fin_form.r_opex"), "opex_usd"],
      [t("fin_form.r_interest"), "financing_interest_usd"], [t("fin_form.r_cloud_data"), "cloud_data_usd"]];
    const rows = lines.filter(([, key]) => c[key]).map(([label, key]) => [label, usd(c[key])]);
    rows.push([t("fin_form.r_total"), usd(plan.total_cost_usd)]);
    if (plan.discount_rate > 0 && c.present_value_usd !== null && c.present_value_usd !== undefined) {
      rows.push([t("fin_form.r_present_value", { rate: pct(plan.discount_rate) }), usd(c.present_value_usd)]);
    }
    return table(t("fin_form.result_title"), [{ label: "" }, { label: t("r.plan"), num: true }], rows);
  }

  function commitments(plan) {
    const lines = plan.commitments || [];
    if (!lines.length) return null;
    const columns = [{ label: t("fin_form.c_offer"), wrap: true }, { label: t("fin_form.c_count"), num: true },
      { label: t("fin_form.c_term"), num: true }, { label: t("fin_form.c_rate"), num: true },
      { label: t("fin_form.c_cost"), num: true }];
    const rows = lines.map((c) => [`${c.provider} ${c.name} (${c.gpu_count}× ${c.gpu}, ${c.region})`, String(c.count),
      String(c.term_months), usd(c.usd_per_hour), usd(c.cost_usd)]);
    return h("div", { id: "finance-commitments" }, h("h4", {}, t("fin_form.commitments_title")),
      table(t("fin_form.commitments_title"), columns, rows));
  }

  function cashFlows(plan) {
    const flows = plan.cash_flows || [];
    if (!flows.length) return null;
    const named = [["capex_usd", t("fin_form.f_capex_usd")], ["electricity_usd", t("fin_form.f_electricity_usd")],
      ["opex_usd", t("fin_form.f_opex_usd")], ["cloud_usd", t("fin_form.f_cloud_usd")],
      ["commitments_usd", t("fin_form.f_commitments_usd")], ["resale_usd", t("fin_form.f_resale_usd")],
      ["net_usd", t("fin_form.f_net_usd")], ["cumulative_usd", t("fin_form.f_cumulative_usd")],
      ["net_present_value_usd", t("fin_form.f_net_present_value_usd")]];
    const keys = named.map(([key]) => key);
    const columns = [{ label: t("fin_form.f_month") }, ...named.map(([, label]) => ({ label, num: true }))];
    // ten columns of money: the figures without the currency's sign, the currency said once in the title
    const rows = flows.map((f) => [f.month === "start" ? t("fin_form.f_start") : gp.period(f.month),
      ...keys.map((k) => gp.amount(f[k]))]);
    const title = t("fin_form.cash_flows_in", { currency: gp.currency() });
    return h("details", { id: "finance-cash-flows" }, h("summary", {}, title), table(title, columns, rows, null, { dense: true }));
  }

  function card(plan) {
    const c = plan.costs || {};
    const relevant = (plan.commitments || []).length || plan.discount_rate > 0 || c.commitments_usd || c.opex_usd
      || c.financing_interest_usd || c.cloud_data_usd;
    if (!relevant) return null;
    return h("section", { class: "card", id: "finance", "aria-labelledby": "finance-title" },
      h("h3", { id: "finance-title" }, t("fin_form.result_title")), breakdown(plan), commitments(plan), cashFlows(plan));
  }

  (globalThis.gpResultCards ||= []).push(card);
})();
