/* Currency and place on the planning form (issue 16): plan currency, electricity location, carbon price, taxes on
 * purchases, an electricity price in any currency, whose tariff it is and its VAT (issue 30), and the currency of
 * the budget and of the carbon price (empty: the plan's currency). */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  // input -> the profile path of the currency of an amount; "" in the select means the plan's currency
  const CURRENCIES = [
    ["place_price_currency", "electricity.currency"],
    ["place_budget_currency", "options.max_capex_currency"],
    ["place_carbon_currency", "options.carbon_price_currency"],
  ];

  gpForm.addSection({
    fill(rest, take) {
      const plan = take(rest, "currency") || "USD";
      $("plan_currency").value = plan;
      const location = take(rest, "electricity.location");
      $("electricity_location").value = location || "";
      const price = take(rest, "options.carbon_price_per_tonne");
      $("carbon_price_per_tonne").value = price === undefined || price === null ? "" : String(price);
      const own = take(rest, "electricity.price_per_kwh");
      $("place_price").value = own === undefined || own === null ? "" : String(own);
      for (const [id, path] of CURRENCIES) {
        const code = take(rest, path);
        $(id).value = !code || code === plan ? "" : code;
      }
    },
    read(profile, readNumber) {
      const currency = $("plan_currency").value;
      const given = (id) => $(id).value || currency;
      if (currency !== "USD") profile.currency = currency;
      const location = $("electricity_location").value.trim();
      if (location) profile.electricity = { ...(profile.electricity || {}), location };
      const own = readNumber("place_price", "electricity.price_per_kwh");
      if (own !== undefined) {
        profile.electricity = { ...(profile.electricity || {}), price_per_kwh: own, currency: given("place_price_currency") };
      }
      const price = readNumber("carbon_price_per_tonne", "options.carbon_price_per_tonne");
      if (price !== undefined) {
        profile.options.carbon_price_per_tonne = price;
        profile.options.carbon_price_currency = given("place_carbon_currency");
      }
      if (profile.options.max_capex_usd !== undefined) profile.options.max_capex_currency = given("place_budget_currency");
    },
  });

  gpForm.fieldSection([
    { id: "place_vat", path: "options.vat_percent", kind: "number" },
    { id: "place_duty", path: "options.import_duty_percent", kind: "number" },
    // whose tariff the location's rate is, and VAT on electricity (issue 30)
    { id: "place_consumer", path: "electricity.consumer", kind: "select" },
    { id: "place_electricity_vat", path: "electricity.vat_percent", kind: "number" },
  ]);
})();
