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
      $("allow_commitments").checked = take(rest, "options.allow_commitments") === true;
      $("discount_rate_pct").value = percent(take(rest, "options.discount_rate"));
      $("financing_rate_pct").value = percent(take(rest, "options.financing.annual_rate"));
      $("financing_term_months").value = plain(take(rest, "options.financing.term_months"));
      $("financing_down_pct").value = percent(take(rest, "options.financing.down_payment"));
      for (const [id, key] of OPEX) $(id).value = plain(take(rest, `options.opex.${key}`));
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
      if (Object.keys(opex).length) options.opex = { ...(options.opex || {}), ...opex };
    },
  });
})();
