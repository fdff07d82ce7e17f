/* Currency and place on the planning form (issue 16): plan currency, electricity location, carbon price. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  gpForm.addSection({
    fill(rest, take) {
      $("plan_currency").value = take(rest, "currency") || "USD";
      const location = take(rest, "electricity.location");
      $("electricity_location").value = location || "";
      const price = take(rest, "options.carbon_price_per_tonne");
      $("carbon_price_per_tonne").value = price === undefined || price === null ? "" : String(price);
      take(rest, "options.carbon_price_currency"); // the form's carbon price is in the plan's currency
    },
    read(profile, readNumber) {
      const currency = $("plan_currency").value;
      if (currency !== "USD") profile.currency = currency;
      const location = $("electricity_location").value.trim();
      if (location) profile.electricity = { ...(profile.electricity || {}), location };
      const price = readNumber("carbon_price_per_tonne", "options.carbon_price_per_tonne");
      if (price !== undefined) {
        profile.options.carbon_price_per_tonne = price;
        profile.options.carbon_price_currency = currency;
      }
    },
  });
})();
