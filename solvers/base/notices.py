"""Stable codes for what a plan tells its reader beside the numbers: warnings, the alternatives' notes and the
carbon report's notes (issue 17: the page says them in the reader's language).

Each sentence is made here, once, from a code and its parameters: `Notice.text` is the English sentence the API
has always answered (it still goes into `warnings`, `alternatives.notes` and `carbon.notes`, word for word), and the
additive `notices` lists beside them carry `{code, params, text}` so a client can say the same thing in its own
language and fall back to `text` for a code it does not know. Codes are never renamed or reused; a new sentence
gets a new code.

Parameters are plain JSON values named by what they hold, so a client can format them without knowing the code:
`usd` is an amount in US dollars (the planner's currency, whatever the plan's `currency`), `usd_per_kwh` a rate in
US dollars, `share` and `efficiency` and `gap` fractions (0.25 = 25%), `*_at` and `oldest` ISO dates or
timestamps, `hours` and `count` and `gpus` numbers, lists are lists of names; everything else is a name as it is.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

Param = str | int | float | bool | list[str] | None

# code -> the English sentence (str.format with the parameters; lists are joined with ", " unless _JOINED says)
TEMPLATES: dict[str, str] = {
    # plan warnings (PlanResult.warnings)
    "electricity_default": "electricity_usd_per_kwh not given: used {usd_per_kwh} USD/kWh (the guide's 2023 figure)",
    "electricity_vat_unknown": "the bundled table has no VAT rate on electricity for {location}: the rate is used "
                               "without VAT; give electricity.vat_percent if you pay it",
    "marketplace_listing": "the plan rents marketplace listing {listing}: one host machine whose price and "
                           "availability the host sets and may change; options.allow_marketplace = false plans "
                           "without listings",
    "marketplace_aggregate": "the plan rents marketplace offer {listing}: an aggregate of {count} listings ({count} "
                             "host machines, at most {count} instances at once) whose prices and availability their "
                             "hosts set and may change; options.allow_marketplace = false plans without listings",
    "partial_upfront_fee_unknown": "{provider} {name} is a partial-upfront reservation whose fee the catalog does "
                                   "not hold (only its effective price): it is counted hourly, later than the provider "
                                   "bills the fee; give it as a prices.commitments quote with upfront_usd to time it",
    "assumed_scaling": "jobs of {gpus} GPUs assumed to scale at {efficiency:.1%} efficiency (the guide's "
                       "data-parallel figures for convolutional nets)",
    "assumed_scaling_not_cnn": "jobs of {gpus} GPUs assumed to scale at {efficiency:.1%} efficiency (the guide's "
                               "data-parallel figures for convolutional nets); transformers and fully connected nets "
                               "scale worse: give jobs.scaling_efficiency if measured",
    "inference_until_done": "{workload} is planned as work that runs until done (jobs.runs = until_done): a faster "
                            "GPU finishes the work in fewer hours; a service that must answer every hour needs "
                            "jobs.runs = \"continuously\"",
    "inference_service_until_done": "{workload} keeps its GPUs busy {share:.0%} of the hours, like a service, but "
                                    "is planned as work that runs until done (jobs.runs = until_done): a faster GPU "
                                    "finishes the work in fewer hours, so the plan holds GPUs for fewer hours than "
                                    "the service runs; if it must answer every hour, set jobs.runs = "
                                    "\"continuously\"",
    "memory_below_reference": ("the plan or an alternative uses {gpus}, with less memory than the reference "
                               "{reference} ({reference_gb:g} GB) the work was sized on; min_gpu_memory_gb is not "
                               "set, so a job that needs the reference's memory may not fit them: give "
                               "min_gpu_memory_gb (the guide: 24 GB for transformer work, 11 GB for pretrained "
                               "transformers, 10 GB for computer vision)"),
    "waits_beyond_window": ("under this plan some work waits up to {hours:,.0f} h, longer than the "
                            "{window_hours:,.0f} h (jobs.patience = {patience}) it may wait: the plan holds each "
                            "window's average load, and GPUs idle early in a window cannot serve work that arrives "
                            "later in it; a longer patience or patience = none (more GPUs at the peaks) keeps work "
                            "within its window"),
    "time_limited": "the solver hit its time limit; the plan is within {gap:.3%} of the optimum",
    "purchases_wait": ("under the profile's uncertainty {share:.0%} of the futures buy at month {month} ({names}): "
                       "this plan's lines, total and thresholds are month 0's decision at the profile's own figures, "
                       "renting for the whole horizon what those futures buy later, so its total is above the "
                       "futures' expected total; risk.deferred holds the later purchases"),
    "single_machine_service": "every replica of this always-on service runs on one machine ({machine}): a failure "
                              "or its maintenance stops the service (spare replicas held: {spares}); a second "
                              "machine, or jobs.spare_replicas with more machines, keeps it up",
    # items the profile brought that the planner leaves out (solvers/offers/ignored.py)
    "ignored_memory": "{field} {item!r} is left out: {gpu} has {memory_gb:g} GB, less than min_gpu_memory_gb = "
                      "{min_gb:g}",
    "ignored_used": "{field} {item!r} is left out: it is used and options.allow_used is false",
    "ignored_buy_not_allowed": "{field} {item!r} is left out: options.allow_buy is false",
    "ignored_machine_smaller_than_job": "{field} {item!r} is left out: its {gpus} GPUs are fewer than a job's "
                                        "{width} (jobs.gpus_per_job), and jobs.interconnect = same_machine runs a job "
                                        "on one machine",
    "ignored_module_unit": "{field} {item!r} is left out: {gpu} is a module ({form_factor}) that comes in servers "
                           "of {sizes} GPUs, not {gpus}",
    "ignored_no_host": "{field} {item!r} is left out: no host machine on offer takes a {gpu} card (its form, "
                       "cooling or power)",
    "ignored_too_slow_replica": "{field} {item!r} is left out: {gpu} is slower than the reference, and a replica "
                                "sized on the reference would fall behind on it (jobs.load = replicas)",
    "ignored_spot": "{field} {item!r} is left out: it is spot and options.allow_spot is false",
    "ignored_provider": "{field} {item!r} is left out: its provider {provider} is not in options.providers",
    "ignored_region": "{field} {item!r} is left out: its region {region} is not in options.regions",
    "ignored_marketplace": "{field} {item!r} is left out: it is a marketplace listing and options.allow_marketplace "
                           "is false",
    "ignored_unverified": "{field} {item!r} is left out: its marketplace host is not verified and "
                          "options.allow_unverified_hosts is false",
    "ignored_job_wider": "{field} {item!r} is left out: its {gpus} GPUs cannot run a job of {width} GPUs (instances "
                         "are linked only over an RDMA fabric: mark it multi_node with jobs.interconnect = "
                         "infiniband)",
    "ignored_cloud_not_allowed": "{field} {item!r} is left out: options.allow_cloud is false",
    "ignored_commitments_not_allowed": "{field} {item!r} is left out: options.allow_commitments is false",
    "commitment_beyond_horizon": "{field} {item!r} runs {term_months} months, longer than the plan's horizon "
                                 "({horizon_days} days): if chosen, its whole term is paid",
    "extrapolated_gpu": "{gpu}'s throughput for {workload} is extrapolated from specs (no measurement of this workload "
                        "class for {gpu}): USD {usd:,.0f} ({share:.0%} of the plan's cost) rests on it; give "
                        "throughput_overrides.{gpu} if you have measured it",
    "extrapolated_reference": "{gpu}'s throughput for {workload} is extrapolated from specs (no measurement of this "
                              "workload class for the reference {reference}): USD {usd:,.0f} ({share:.0%} of the "
                              "plan's cost) rests on it; give throughput_overrides.{gpu} if you have measured it",
    "extrapolated_both": "{gpu}'s throughput for {workload} is extrapolated from specs (no measurement of this "
                         "workload class for {gpu} or the reference {reference}): USD {usd:,.0f} ({share:.0%} of the "
                         "plan's cost) rests on it; give throughput_overrides.{gpu} if you have measured it",
    "stale_source": "prices from source {source!r} are stale: {reasons}",
    "stale_source_never": "prices from source {source!r} are stale: {reasons}",
    "stale_sources": "prices from {count} sources are stale ({sources}): the last good prices of each, or the "
                     "bundled snapshot's where a source never refreshed, are used; GET /v1/sources says when each "
                     "last refreshed and why it could not",
    "aggregator_purchase": "the plan buys {item}, priced only by an aggregator ({source}), not by the seller itself, "
                           "and no second source confirms the price: check it with the seller before you buy",
    "aggregator_cloud": "the cloud offer the plan rents most, {item}, is priced only by an aggregator ({source}), not "
                        "by the provider itself, and no second source confirms the price: check it with the provider "
                        "before you rent",
    "old_snapshot": "bundled snapshot prices are used for {providers} (oldest from {oldest}, older than {max_age_days} "
                    "days): run `gpuplan refresh` or let the service's scheduler reach the providers for current "
                    "prices",
    # the alternatives' notes (PlanResult.alternatives.notes)
    "cloud_only_quota": "cloud_only: the cloud offers' quotas cannot meet the demand alone",
    "cloud_only_none": "cloud_only: no cloud offer is allowed by this profile",
    "buy_only_infeasible": "buy_only: no purchase within the profile's limits meets the demand without cloud",
    "buy_only_none": "buy_only: no GPU can be bought under this profile",
    # the carbon report's notes (PlanResult.carbon.notes)
    "carbon_owned_unknown": "owned energy unknown: the electricity rate is 0",
    "carbon_owned_fallback": "owned energy ({location}): no figure of its own, the {fallback} intensity is used",
    "carbon_region_fallback": "regions without a location or an intensity of their own take the world or national "
                              "average: {regions}",
    "carbon_unknown_power": "{hours:,.0f} rented instance-hours are on GPUs whose power is not known and are not "
                            "counted",
}
_JOINED = {"stale_source": "; ", "stale_source_never": "; ", "ignored_module_unit": " or "}
# parameters a code carries beyond its English sentence's slots (structure the sentence states in words)
EXTRA_PARAMS: dict[str, tuple[str, ...]] = {
    "stale_source": ("last_success_at", "stale_after_hours"),
    "stale_source_never": ("last_success_at", "stale_after_hours"),
    "extrapolated_gpu": ("reference",),
}


class Notice(BaseModel):
    """One sentence of a plan as a code, its parameters and its English text."""

    code: str = Field(description="stable code (solvers/base/notices.py); a client translates it or shows `text`")
    params: dict[str, Param] = Field(default_factory=dict, description="the values the sentence names")
    text: str = Field(description="the English sentence (the same as in the plain-text list beside)")


def notice(code: str, **params: Param) -> Notice:
    """The notice `code` with its parameters and English text; an unknown code is a programming error (KeyError)."""
    joiner = _JOINED.get(code, ", ")
    shown = {k: joiner.join(v) if isinstance(v, list) else v for k, v in params.items()}
    return Notice(code=code, params=params, text=TEMPLATES[code].format(**shown))


def texts(notices: list[Notice]) -> list[str]:
    return [n.text for n in notices]


def classified(text: str, known: list[Notice]) -> Notice:
    """A sentence made elsewhere as one of the `known` notices it equals word for word, or code `unclassified`
    (a client shows its English text)."""
    return next((n for n in known if n.text == text), Notice(code="unclassified", text=text))
