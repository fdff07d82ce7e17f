"""Defaults of the `uncertainty` option, each with its source or marked as a planning assumption.

- CLOUD_PRICE_PER_YEAR: the price of a fixed amount of GPU compute falls as FLOP/s per dollar rises; Epoch AI
  (Marius Hobbhahn and Tamay Besiroglu, "Trends in GPU price-performance", 2022,
  https://epochai.org/blog/trends-in-gpu-price-performance) find FLOP/s per dollar doubling every 2.46 years
  (95% CI 2.24-2.72) over 470 GPUs of 2006-2021, and every 2.07 years for GPUs used in ML research: 2 ** (-1 / 2.46)
  - 1 = -0.246 a year. A cloud offer is repriced, or undercut by newer cards at the same price per unit of work,
  at about that pace; planning on the catalog's newest prices as flat (today's plan) ignores it.
- CLOUD_PRICE_SPREAD: 0.10, the range between the all-GPU (-0.246) and ML-GPU (2 ** (-1 / 2.07) - 1 = -0.285) trends
  and the slower top-GPU one (2.95 years: -0.209) is about +-0.04; a year-to-year rental market moves more than its
  trend (the project's own history has an 8x H100 offer at 23.92 then 31.92 USD/h within 2026,
  pricing/data/cloud_offers.SOURCES.md), so +-0.10 is a planning assumption on top of the published range.
- ELECTRICITY_SPREAD: 0.15; the average US industrial electricity price peaked at 8.3 cents/kWh in 2022 and was 8.06
  in 2023 (U.S. EIA, average retail price for industrial consumers 1970-2023, as charted by Statista 2024-03-18,
  https://www.statista.com/statistics/190680/us-industrial-consumer-price-estimates-for-retail-electricity-since-1970/),
  about 7.2 in 2021 (EIA Electric Power Monthly, table 5.3): some 15% in a year, the spread taken here.
- RESALE_SPREAD: 0.25; used-card prices of one model differ by about that much between listings and months (the
  guide's 2020 used prices: RTX 2070 $260-400, DOMAIN.md section 6); a planning assumption.
- DEMAND_SIGMA: 0.5 (lognormal, median 1); no published forecast error of a research group's compute demand was
  found; the issue's "within a factor of two" is 0.5 -> 2 at about 1.4 sigma. A planning assumption.
- DEMAND_GROWTH_PER_YEAR: 0 (the profile's demand as given; a lab that expects growth says so).
- SCENARIOS: 64 scrambled Sobol points (a power of two keeps the Sobol sequence balanced); MAX_SCENARIOS 500.
- CVAR_ALPHA: 0.10, the worst 10% (the issue's figure).
- SAA_REL_GAP: 0.01, the relative gap at which the stochastic program stops (today's plan: 1e-6). Why wider: the
  sample average of 100 futures estimates the expected total with an error of a few percent of it (the futures'
  totals of a 36-month lab spread from 0.5x to 1.7x of their mean), so a plan proven within 1% of the sample's
  best is as good as the sample can tell; the proven gap is reported (risk.gap).
- TIME_LIMIT_S: 20 s for the whole analysis (building every future's model, the stochastic program, pricing plans
  in every future, the value of waiting): two of the planner's 10-s solver limits, within the service's 30-s plan
  budget (`GPUPLAN_PLAN_TIME_BUDGET_S`) with today's plan beside it. What the budget does not reach is reported as
  such: the program's gap (status time_limited), and null for a figure left out.
"""

from __future__ import annotations

CLOUD_PRICE_PER_YEAR = -0.246
CLOUD_PRICE_SPREAD = 0.10
ELECTRICITY_SPREAD = 0.15
RESALE_SPREAD = 0.25
DEMAND_SIGMA = 0.5
DEMAND_GROWTH_PER_YEAR = 0.0
SCENARIOS = 64
MAX_SCENARIOS = 500
CVAR_ALPHA = 0.10
SAA_REL_GAP = 0.01
TIME_LIMIT_S = 20.0
