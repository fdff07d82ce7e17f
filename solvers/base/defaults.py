"""Every default the planner uses when a profile does not say, with where the figure comes from.

DOMAIN = Tim Dettmers, "Which GPU(s) to Get for Deep Learning", timdettmers.com: 2019 edition, 2020 edition
(https://timdettmers.com/2020/09/07/which-gpu-for-deep-learning/) and 2023 edition
(https://timdettmers.com/2023/01/30/which-gpu-for-deep-learning/); "DOMAIN §n" is the section of the project's
domain notes that quote it, with the edition.
A figure marked "planning assumption" is gpuplan's own documented choice, overridable per request.
"""

from __future__ import annotations

from typing import Literal

# DOMAIN §5 worked example: "350 W GPU + 100 W CPU"; the CPU/board draw that a working GPU adds to
# its host. Also reserved out of every host's PSU rating when checking that the cards fit.
HOST_WATTS_PER_WORKING_GPU = 100.0

# DOMAIN §4 (2023 perf-per-dollar charts): $0.175/kWh. Used only when a profile gives no rate,
# and then said in the plan's warnings.
ELECTRICITY_USD_PER_KWH = 0.175

# Planning assumption: an owned GPU can work 95% of the hours in a period (about 36 h a month for
# maintenance, driver/OS updates and failures). Set options.availability = 1.0 to ignore.
AVAILABILITY = 0.95

# Planning assumption: an idle GPU draws 10% of its board power (TDP) while the machine is on
# (idle NVIDIA boards draw roughly 5-15% of TDP). Set idle_watts = 0 per item to ignore.
GPU_IDLE_FRACTION_OF_TDP = 0.10

# Power usage effectiveness (cooling and power distribution per kWh the machine draws) of an owned machine by where it
# stands, i.e. by its host's kind (pricing/data/hosts.csv `kind`; a whole system by `solvers.offers.pue.system_kind`),
# unless
# options.pue says one figure for every machine.
# - desktop, workstation: 1.0, a machine in an office: its room's air conditioning is the building's, not metered to
#   it (gpuplan planning assumption, the figure the planner used for every machine before issue 30);
# - server (a rack or a server room): 1.54, the average annual PUE data-centre operators reported for their largest
#   site in the Uptime Institute Global Data Center Survey 2025 (July 2025; "stable at approximately 1.54 for the
#   sixth consecutive year", as summarised by Network Environments, "Key insights: Uptime Institute 2025 Global Data
#   Center Survey", https://www.networkenvironments.com/key-insights-uptime-institute-2025-global-data-center-survey;
#   Uptime's own survey page says average PUE "show[s] little change for the sixth consecutive year",
#   https://intelligence.uptimeinstitute.com/resource/uptime-institute-global-data-center-survey-2025). Uptime's
#   2023 figure was 1.58 (UII Update 221, "Large data centers are mostly more efficient, analysis confirms",
#   https://intelligence.uptimeinstitute.com/resource/large-data-centers-are-mostly-more-efficient-analysis-confirms),
#   and the same analysis finds smaller sites less efficient, so a lab's server room likely does no better.
PUE_BY_HOST_KIND: dict[str, float] = {"desktop": 1.0, "workstation": 1.0, "server": 1.54}
# cloud data centres' power usage effectiveness, for the carbon of rented hours: the average of large data centres
# in the Uptime Institute's 2021 Data Center Survey, 1.57 (quoted by CNBC, 2022-04-13, "Google data center goal:
# 100% green energy by 2030", https://www.cnbc.com/2022/04/13/google-data-center-goal-100percent-green-energy-by-2030.html;
# Google's own fleet: 1.1 in Q2 2021, same article). A documented default: marketplace hosts are not hyperscalers.
CLOUD_PUE = 1.57

# Planning assumption: spot/interruptible capacity loses 10% of its hours to pre-emption and
# restarts from the last checkpoint, so a spot GPU-hour delivers 0.9 of an on-demand one.
SPOT_INTERRUPTION_OVERHEAD = 0.10

# Resale at the horizon's end follows the resale curve fitted per card family on used prices across years
# (pricing/data/resale_curves.csv, pricing/tools/fit_resale.py; solvers/offers/resale.py): no flat default decline.
# Selling costs: eBay's final value fee is 13.25% of the sale in most categories (2024 fee table).
RESALE_FEE = 0.13
# When neither a used price nor a launch price is known for a GPU (data-centre parts), its used value today is taken
# as this share of the new price: the RTX 3090's used/new ratio, $740 used (2023-08) / $1,499 launch MSRP = 0.49.
USED_TO_NEW_RATIO = 0.49

# A catalog price of a new whole system (a server or desktop sold with its GPUs) is offered as "new" for this many
# years after its date, then kept as price history only. gpuplan planning default: NVIDIA replaced its 8-GPU DGX
# about every 2-3 years (DGX-1 V100 2017, DGX A100 May 2020, DGX H100 shipping from Q1 2023, DGX B200 and B300
# since), and a superseded system's launch price is not what it sells for: a DGX A100 640GB was quoted at
# USD 300,000 (2021-06) while a complete new HGX A100 640GB server listed at USD 148,390 (Dihuni, 2023-09).
# A lab's own quote (profile prices) is always offered.
NEW_SYSTEM_OFFER_YEARS = 3

# Default horizon for a demand series without an explicit horizon: the series' own span.
MAX_HORIZON_MONTHS = 120
MAX_HORIZON_DAYS = 3653

# Solver limits: a plan request answers within this time; past it the plan says "time_limited" and
# gives the optimality gap.
SOLVER_TIME_LIMIT_S = 10.0
SOLVER_REL_GAP = 1e-6

# When owned machines are on (idle power counts only then). Default "when_working": the guide's energy
# formula (DOMAIN §4: watts x utilisation x 24 x 365) counts working hours only, i.e. a desktop that is
# switched off or suspended when no job runs. A server left on 24/7 is `options.machine_on = "always"`.
MACHINE_ON: Literal["when_working"] = "when_working"

# Data-parallel speed-up of one job on n GPUs (DOMAIN §3, 2019: about 1.9x / 2.8x / 3.5x on 2 / 3 / 4 GPUs
# for convolutional nets; DOMAIN §1, 2020: 7.00x from 1 to 8 A100). Efficiency = speed-up / n, linear
# between the points and 7.0/8 beyond 8. The guide gives no figure for transformers or fully connected nets
# ("parallelise worse"): the same figures are used as an upper bound and the plan says so; a profile's
# measured `jobs.scaling_efficiency` replaces them.
SPEEDUP_BY_GPUS = {1: 1.0, 2: 1.9, 3: 2.8, 4: 3.5, 8: 7.0}

# Marketplace providers: each listing is one host machine, so at most one instance of it at a time
# (its quota is its listed count, 1 unless the catalog says otherwise).
MARKETPLACE_PROVIDERS = frozenset({"vast"})

# Marketplace rows of these feeds come from verified hosts only, so `allow_unverified_hosts = false` keeps them:
# the live `vast` source asks Vast's bundles search for `verified = true` (pricing/sources/vast.py); the bundled
# Vast aggregates (`snapshot/vast`) and the `skypilot_vast` source are SkyPilot's vast/vms.csv, written by its
# fetch_vast.py through the Vast SDK's search_offers, whose default query is verified = true, external = false,
# rentable = true, rented = false (github.com/vast-ai/vast-cli, vast.py `search__offers`; SkyPilot adds no
# no_default). A profile's own marketplace quote is unverified unless it says `verified: true`.
VERIFIED_HOST_FEEDS = frozenset({"vast", "snapshot/vast", "skypilot_vast"})

# Load-duration curve size: a period keeps at most this many distinct concurrency levels; beyond it,
# neighbouring levels are merged into their hour-weighted mean (exact in work, approximate in rounding).
MAX_LEVELS_PER_PERIOD = 12

# Always-on divisible load (a service whose requests split across replicas) is counted in load units, the hour's
# load rounded up to whole units: as many units at the peak as the least common multiple of the replicas each known
# GPU type needs alone (so each type's own count of whole replicas is exact at the peak), at most this many (60 has
# every divisor up to 6, and 10, 12, 15, 20, 30); beyond it the peak is this many units. A gpuplan choice: each unit
# is a level of the load-duration curve and a row of the cover table, so the model grows with it.
ALWAYS_ON_MAX_UNITS = 60

# Model size for very large labs: the screening curve is evaluated at every owned slot count up to this many,
# then on an even grid (owned slots planned in steps of peak / 256); whole-instance covers are tabulated up to
# MAX_COVER_TABLE jobs at once, larger counts taking whole instances of the cheapest offer per job slot first.
MAX_SLOT_STEPS = 256
MAX_COVER_TABLE = 2048

# Jobs across machines (`jobs.interconnect`). Efficiency of one job on k machines relative to the same GPUs in one
# machine, over an RDMA fabric (InfiniBand, or AWS EFA): MosaicML's measured strong scaling of a 1.3B-parameter
# model on cloud clusters with 400-1600 Gbps fabrics, 3.9x on 4 nodes and 14.4x on 16 (Linden Li, MosaicML, 2022,
# "Running training jobs across multiple nodes scales really well", quoted at
# https://simonwillison.net/2022/Sep/24/linden-li/): 0.975 and 0.90, linear between, 0.90 beyond 16.
# Ethernet has no default: DOMAIN §3 asks for at least 50 Gbit/s (EDR InfiniBand) across machines, so a profile
# on ethernet gives its measured `jobs.cross_machine_efficiency`.
CROSS_MACHINE_EFFICIENCY = {1: 1.0, 4: 0.975, 16: 0.90}

# Owned machines linked for one job: DOMAIN §3 (2020), two EDR InfiniBand cards plus a cable about $500 used, i.e.
# $250 per machine; a switch for three or more machines is not priced (the plan says so).
NETWORK_USD_PER_MACHINE = 250.0

# Cloud offers whose instances can be linked for one job over an RDMA fabric; an offer not listed (and not marked
# `multi_node` in the request) is not used for a job wider than one instance (unknown = not allowed).
# AWS: the EC2 User Guide, "Elastic Fabric Adapter", supported instance types
# (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types).
# Azure: the ND-family size pages (https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nd-family),
# e.g. ND H100 v5: "Each GPU ... its own dedicated ... 400 Gb/s NVIDIA Quantum-2 CX7 InfiniBand connection"
# (ndh100v5-series), ND MI300X v5: "Infiniband: Supported, GPUDirect RDMA, 8x400 Gigabit NDR" (nd-mi300x-v5-series).
# GCP A3 (GPUDirect-TCPX, not RDMA), CoreWeave and the rest are unknown here: not linked.
MULTI_NODE_OFFERS = frozenset({
    ("aws", "p3dn.24xlarge"), ("aws", "p4d.24xlarge"), ("aws", "p4de.24xlarge"), ("aws", "p5.48xlarge"),
    ("aws", "p5en.48xlarge"),
    ("azure", "Standard_ND40rs_v2"), ("azure", "Standard_ND96asr_v4"), ("azure", "Standard_ND96amsr_A100_v4"),
    ("azure", "Standard_ND96isr_H100_v5"), ("azure", "Standard_ND96isr_H200_v5"),
    ("azure", "Standard_ND96isr_MI300X_v5"),
})

# How far the break-even search scales a profile's demand when its demand is not GPUs at a utilisation (which
# scales to every GPU busy all the time): a gpuplan bound, wide enough that every catalog purchase is reached.
MAX_DEMAND_SCALE = 1000.0
