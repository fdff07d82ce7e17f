/* What the API says in English, said in the reader's language (issue 17): the recommendation composed from the
 * plan's structured fields (buy, hosts, commitments, cloud, costs, break-even), warnings and notes from their stable
 * codes (`notices`, solvers/base/notices.py), API values such as "on_demand", and the few fixed sentences the API
 * answers. Anything the page does not know (an unknown code, an older plan without `notices`) is shown as the API's
 * English text, never dropped. The API itself stays English (clients key on its codes). */
"use strict";

const gpText = (() => {
  const { t, has, locale, money, rateMoney, wholeMoney, num, pct, date } = gp;
  const listFormat = new Intl.ListFormat(locale, { style: "long", type: "conjunction" });

  /** An API value (pricing "on_demand", condition "used", payment "all_upfront", ...) in the reader's words. */
  function value(kind, raw) {
    const key = `api.${kind}.${raw}`;
    return has(key) ? t(key) : String(raw ?? "");
  }

  const monthYear = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", timeZone: "UTC" });
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  /** A catalog item's name with its trailing qualifier in the reader's words: "RTX 4090 (used, eBay)" is
   *  "RTX 4090 (d'occasion, eBay)" in French. The qualifier's parts the catalogue knows (`product.q.*`: condition and
   *  kind of price) and month-year dates ("Feb 2026") are translated; vendor names and anything else stay, and a
   *  name none of whose qualifier the page knows (a user's own "desktop (guide 2020)") stays as it was written. */
  /** A cloud offer as the sentence names it: its provider, then its name, unless the name begins with the
   * provider already ("fal-ai-b200-1x", not "fal-ai fal-ai-b200-1x"; the API's `offer_name`). */
  function offerName(provider, name) {
    const p = (provider || "").toLowerCase();
    const n = (name || "").toLowerCase();
    return p && (n === p || n.startsWith(`${p}-`) || n.startsWith(`${p} `) || n.startsWith(`${p}_`))
      ? name : `${provider} ${name}`;
  }

  /** Whether a product's name says its condition in its closing parentheses ("RTX 3090 (used, eBay)"): then the
   * sentence says it once (the API's `names_condition`). */
  function namesCondition(name, condition) {
    const found = /^(.*) \(([^()]*)\)$/.exec(name || "");
    return !!found && found[2].split(", ").includes(condition);
  }

  /** One card or machine a plan buys, its condition said once. */
  function buyItem(b, jobs) {
    const values = { count: num(b.count, 0), name: productName(b.name), condition: value("condition", b.condition),
      jobs };
    return t(namesCondition(b.name, b.condition) ? "rec.buy_item_named" : "rec.buy_item", values);
  }

  function productName(name) {
    const found = /^(.*) \(([^()]*)\)$/.exec(name || "");
    if (!found) return name;
    let known = false;
    const parts = found[2].split(", ").map((part) => {
      if (has(`product.q.${part}`)) {
        known = true;
        return t(`product.q.${part}`);
      }
      const when = /^([A-Z][a-z]{2}) (\d{4})$/.exec(part);
      const month = when ? MONTHS.indexOf(when[1]) : -1;
      known ||= month >= 0;
      return month >= 0 ? monthYear.format(new Date(Date.UTC(Number(when[2]), month, 1))) : part;
    });
    return known ? t("rec.named", { name: found[1], qualifier: parts.join(t("rec.sep")) }) : name;
  }

  /** Names joined as the sentence's language joins a list ("a, b" in the recommendation, as the API does). */
  const joined = (items) => items.join(t("rec.sep"));

  /** ", jobs of N GPUs" after a line of a workload-form plan (its `gpus_per_job`), nothing in the class form. */
  const jobsOf = (width) => (width === null || width === undefined ? ""
    : width === 1 ? t("rec.jobs_of_one") : t("rec.jobs_of_many", { n: num(width, 0) }));

  /** USD per unit of `code` from a plan's exchange rates (null when the plan carries none for it). */
  function usdPerUnit(plan, code) {
    if (code === "USD") return 1;
    const rate = (plan.exchange_rates?.rates || []).find((r) => r.currency === code);
    return rate ? rate.usd_per_unit : null;
  }

  /** An amount the API states in US dollars (a notice's `usd`, an offer's "USD/h"), in the plan's currency when
   *  the plan carries the rate, else in dollars. */
  function fromUsd(plan, usd, rate = false) {
    const code = plan.currency || "USD";
    const perUnit = usdPerUnit(plan, code);
    const write = rate ? rateMoney : money;
    return perUnit ? write(usd / perUnit, code) : write(usd, "USD");
  }

  /* ---------- the recommendation ---------- */

  function horizonText(plan, profile) {
    if (profile && profile.horizon_months !== undefined && profile.horizon_months !== null) {
      return t("rec.months", { n: num(profile.horizon_months, 0) });
    }
    if (profile && profile.horizon_days !== undefined && profile.horizon_days !== null) {
      return t("rec.days", { n: num(plan.horizon.days, 0) });
    }
    return t("rec.months", { n: num(plan.horizon.periods, 0) });
  }

  /** The plan's recommendation in the reader's language, from the same fields the API's sentence is made of
   *  (solvers/plan.py `_recommendation`); `profile` (when known) says whether the horizon was given in days. */
  function recommendation(plan, profile) {
    if (!Array.isArray(plan.buy) || !Array.isArray(plan.cloud)) return plan.recommendation;
    let sentence = "";
    const clause = (first, then, items) => { sentence += t(sentence ? then : first, { items }); };
    if (plan.buy.length) {
      let items = joined(plan.buy.map((b) => buyItem(b, jobsOf(b.gpus_per_job))));
      if ((plan.hosts || []).length) {
        items = t("rec.in_hosts", { items, hosts: joined(plan.hosts.map((h) => t("rec.host_item",
          { count: num(h.count, 0), name: h.name }))) });
      }
      clause("rec.buy", "rec.buy", items);
    }
    if ((plan.commitments || []).length) {
      clause("rec.reserve_first", "rec.reserve_then", joined(plan.commitments.map((c) => t("rec.reserve_item",
        { count: num(c.count, 0), offer: offerName(c.provider, c.name), months: num(c.term_months, 0),
          jobs: jobsOf(c.gpus_per_job) }))));
    }
    if (plan.cloud.length) {
      clause("rec.rent_first", "rec.rent_then", joined(plan.cloud.slice(0, 3).map((c) => t("rec.rent_item",
        { hours: num(c.hours, 0), offer: offerName(c.provider, c.name), region: c.region,
          pricing: value("pricing", c.pricing), jobs: jobsOf(c.gpus_per_job) }))));
    }
    const horizon = horizonText(plan, profile);
    const be = plan.break_even;
    const cloudOnly = plan.alternatives?.cloud_only;
    if (cloudOnly && plan.buy.length) {
      // on the basis the plan was chosen on: present value when the profile discounts (solvers/plan.py)
      const rate = plan.discount_rate || 0;
      const saving = rate > 0 ? (cloudOnly.costs?.present_value_usd || 0) - (plan.costs?.present_value_usd || 0)
        : cloudOnly.total_cost_usd - plan.total_cost_usd;
      const worth = rate > 0 ? t("rec.worth", { rate: Number((100 * rate).toPrecision(6)).toLocaleString(locale,
        { maximumFractionDigits: 6 }) }) : "";
      sentence += t("rec.saves", { money: wholeMoney(saving, plan.currency || "USD"), worth, horizon });
      if ((cloudOnly.commitments || []).length) sentence += t("rec.cloud_reserves");
      if (be.days !== null && be.days !== undefined) sentence += t("rec.pays_off", { n: String(Math.ceil(be.days)) });
    } else if (!plan.buy.length) {
      sentence += t("rec.no_pay", { horizon });
      if (plan.workload && be.demand_scale_threshold !== null && be.demand_scale_threshold !== undefined) {
        sentence += t("rec.would_from_work", { x: num(be.demand_scale_threshold, 2) });
      } else if (!plan.workload && be.utilisation_threshold !== null && be.utilisation_threshold !== undefined) {
        sentence += t("rec.would_from_util", { pct: pct(be.utilisation_threshold) });
      }
    }
    return sentence + t("rec.end");
  }

  /* ---------- warnings and notes from their codes ---------- */

  /** A notice parameter written for the reader, by what its name says it holds (solvers/base/notices.py). */
  function param(plan, name, raw) {
    if (raw === null || raw === undefined) return "–";
    if (Array.isArray(raw)) return listFormat.format(raw.map(String));
    if (name === "usd" || name === "usd_per_kwh") return fromUsd(plan, raw, name !== "usd");
    if (name === "workload" && has(`workload.${raw}`)) return t(`workload.${raw}`);
    if (name === "gap") return raw.toLocaleString(locale, { style: "percent", maximumFractionDigits: 3 });
    if (name === "share" || name === "efficiency") return pct(raw);
    if (name === "oldest" || name.endsWith("_at")) return date(raw);
    if (name === "location" && raw === "no electricity.location") return t("carbon.no_location");
    if (name === "fallback" && raw === "World (average)") return t("carbon.world");
    if (typeof raw === "number") return num(raw, 0);
    return String(raw);
  }

  /** One notice ({code, params, text}) in the reader's language; its English text for a code the page lacks. */
  function notice(plan, found) {
    const key = `notice.${found.code}`;
    if (!has(key)) return found.text;
    const values = {};
    for (const [name, raw] of Object.entries(found.params || {})) values[name] = param(plan, name, raw);
    return t(key, values);
  }

  /** A list of notices, or the plain English list of an older plan that has no `notices`. */
  const notices = (plan, coded, plain) => (Array.isArray(coded) && coded.length === (plain || []).length
    ? coded.map((n) => notice(plan, n)) : (plain || []));

  /* ---------- the few fixed sentences and labels the API writes in English ---------- */

  // "aws/p3.2xlarge (us-east-1, on_demand) at 3.06 USD/h": the reference offer of the thresholds and the closed form
  const OFFER = /^(.+) \(([^()]*), (on_demand|spot)\) at ([0-9.eE+-]+) USD\/h$/;

  /** A cloud offer as the API names it, in the reader's words and the plan's currency. */
  function offer(plan, text) {
    const found = OFFER.exec(text || "");
    if (!found) return text || "";
    return t("r.offer_at", { offer: found[1], region: found[2], pricing: value("pricing", found[3]),
      price: fromUsd(plan, Number(found[4]), true) });
  }

  /** A sensitivity end's decision ("rent only", "buy 1 x RTX 3090", "no feasible plan": solvers/replan/sensitivity.py);
   *  `items` (the row's `*_purchases`, when the API gave them) write the purchases in the reader's words. */
  function decision(text, items) {
    if (Array.isArray(items) && items.length) {
      return t("sens.buy", { items: joined(items.map((b) => t("sens.buy_item", { count: num(b.count, 0),
        name: productName(b.name) }))) });
    }
    if (text === "rent only") return t("sens.rent_only");
    if (text === "no feasible plan") return t("sens.no_plan");
    return text.startsWith("buy ") ? t("sens.buy", { items: text.slice(4) }) : text;
  }

  return { value, recommendation, notice, notices, offer, decision, fromUsd, usdPerUnit, productName, buyItem };
})();
