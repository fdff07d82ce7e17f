"""Every coefficient the workload compiler uses, with its source (mirrored in README.md's table).

Kept in one module so a reviewer can check each number against its paper or documentation page.
"""

from __future__ import annotations

# FLOPs per parameter per token. Dense transformer training: forward 2, backward 4 (Kaplan et al. 2020,
# "Scaling Laws for Neural Language Models", section 2.1; Hoffmann et al. 2022). Full activation
# recomputation replays the forward pass: 8 (Korthikanti et al. 2022, "Reducing Activation Recomputation
# in Large Transformer Models", section 4), so it adds the forward's 2 to any job, adapters' included.
# LoRA/QLoRA skip the frozen weights' gradients: forward 2 + activation gradients 2 = 4 (derived from
# Kaplan's split: the backward's 4 is half activation, half weight gradients). Inference: forward only, 2
# (Kaplan et al. 2020).
TRAIN_FLOPS_PER_PARAM_TOKEN = 6.0
RECOMPUTE_FLOPS_PER_PARAM_TOKEN = 2.0
ADAPTER_FLOPS_PER_PARAM_TOKEN = 4.0
INFERENCE_FLOPS_PER_PARAM_TOKEN = 2.0

# Bytes per parameter of mixed-precision training with Adam: 2 (16-bit weights) + 2 (16-bit gradients)
# + 12 (FP32 master weights, momentum, variance) = 16 (Rajbhandari et al. 2020, "ZeRO", section 3.1,
# K = 12). ZeRO stage 1/2/3 divide the optimizer states / + gradients / + weights by the data-parallel
# degree (same paper, figure 1).
WEIGHT_BYTES_16BIT = 2.0
GRADIENT_BYTES_16BIT = 2.0
ADAM_STATE_BYTES = 12.0

# Bytes per parameter of stored weights by precision: 16-bit 2, 8-bit 1, 4-bit NF4 0.5 plus QLoRA's
# double-quantised constants, 0.127 bit per parameter (Dettmers et al. 2023, "QLoRA", section 3).
WEIGHT_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5 + 0.127 / 8}

# Activation memory per transformer layer, bytes, 16-bit, sequence s, micro-batch b, hidden h
# (Korthikanti et al. 2022, section 4, equations 1-2): without recomputation s*b*h*(34 + 5*a*s/h);
# selective recomputation (attention recomputed, as FlashAttention does) 34*s*b*h; full
# recomputation keeps only the layer input, 2*s*b*h.
ACTIVATION_BYTES_SELECTIVE = 34.0
ACTIVATION_BYTES_FULL_RECOMPUTE = 2.0

# Shape of a dense decoder when only the parameter count is given: N ~ 12 * layers * hidden^2
# (Kaplan et al. 2020, equation 2.1 without embeddings) and hidden / layers ~ 128 (LLaMA-7B 4096/32,
# LLaMA-13B 5120/40, GPT-3 175B 12288/96: Touvron et al. 2023 table 2, Brown et al. 2020 table 2.1).
PARAMS_PER_LAYER_HIDDEN2 = 12.0
HIDDEN_PER_LAYER = 128.0
HEAD_DIM = 128.0  # LLaMA and GPT-3 head size (same tables)
# A guessed head count is rounded to a multiple of 8 (from 8 heads up), as published decoders of that size have
# (LLaMA 7B/65B 32/64 heads, LLaMA-2 70B 64, GPT-3 2.7B-175B 32/32/32/40/96: 8 or a multiple), so Megatron-LM's
# tensor parallelism, which splits the heads, can use 2, 4 or 8 GPUs; round(h / 128) alone gave 33 heads for 7B,
# 71 for 70B (prime), i.e. no tensor parallelism at all.
GUESSED_HEADS_MULTIPLE = 8

# LoRA adapters on every linear layer of a block, as QLoRA does (Dettmers et al. 2023, section 4):
# rank r on a d_in x d_out matrix adds r*(d_in + d_out) parameters (Hu et al. 2021, "LoRA", section 4.1).
# A block has 4 attention matrices h x h and an MLP of 2 matrices h x 4h (GPT, Brown et al. 2020):
# 4*2h + 2*5h = 18h per unit of rank.
LORA_PARAMS_PER_RANK_HIDDEN = 18.0
DEFAULT_LORA_RANK = 16  # QLoRA's rank for its main experiments is 64; Hu et al. show r = 4-16 suffices

# Achieved FLOP/s in training and prefill: each GPU's dense 16-bit tensor peak times its family's achieved fraction,
# calibrated on published LLM training runs (`mfu.py`, `pricing/data/llm_training_runs.csv`: llm-foundry and
# torchtitan give A100 56% and H100 41% of peak counted as 6ND, 8ND with activation recomputation). It replaces a
# 46% "MFU on A100" (PaLM's 46.2% was measured on TPU v4) scaled by the bandwidth-led throughput model.

# Fraction of peak memory bandwidth a serving stack reaches in decode (MBU): 70-85% for vLLM and TensorRT-LLM
# (https://www.open-source-ai.tech/glossary/model-bandwidth-utilization, a glossary; the low end is used). Nearest
# published measurement: NVIDIA NeMo Framework's Llama-2 inference table
# (https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html): Llama-2-7B, batch 1, 128
# prompt and 20 output tokens take 234 ms on one A100 80GB and 153.8 ms on one H100; with the prompt's time counted
# as decode, 13.5 GB of 16-bit weights are read at least every 11.7 / 7.7 ms, >= 57% / >= 52% of peak bandwidth
# (lower bounds). 0.70 stays the default, between the two.
DECODE_BANDWIDTH_UTILISATION = 0.70

# GPU memory usable by a job: the CUDA context, allocator fragmentation and framework buffers take the rest.
# 0.90 is vLLM's default `gpu_memory_utilization` ("the fraction of GPU memory to be used for the model executor",
# https://docs.vllm.ai/en/latest/models/engine_args.html), overridable per request.
USABLE_MEMORY_FRACTION = 0.90

# Data-parallel scaling (DOMAIN.md section 3, guide 2019): 1.9x / 2.8x / 3.5x on 2 / 3 / 4 GPUs. Beyond 4 each
# doubling keeps 95%: a gpuplan default. Nearest published figures: llm-foundry's FSDP tables (the runs file's
# source, 1,600 Gbit/s RoCE) keep 97-101% of per-GPU throughput per doubling from 8 to 64 GPUs (H100 MPT-1B 45,455
# / 46,037 / 45,130 / 44,402 tokens/s/GPU on 8 / 16 / 32 / 64; A100 40GB MPT-13B 1,993 / 1,998 / 1,976 / 1,972 on
# 16 / 32 / 64 / 128); 95% is kept as the allowance for slower networks than those clusters'.
SCALING = {1: 1.0, 2: 1.9, 3: 2.8, 4: 3.5}
SCALING_PER_DOUBLING_BEYOND_4 = 0.95

# GPUs in one server (HGX/DGX and 8-slot PCIe chassis, hosts.csv); wider jobs span servers and need
# >= 50 Gbit/s networking (DOMAIN.md section 3).
GPUS_PER_SERVER = 8
MAX_GPUS_PER_JOB = 4096

# Communication of multi-GPU training (`comm.py` says what moves when and the links' achieved bus bandwidth).
# Share of the backward pass that data-parallel communication can hide behind. PyTorch DDP overlaps gradient buckets
# with the backward pass (Li et al. 2020, VLDB 13(12); pytorch.org/docs/stable/notes/ddp.html), but the last bucket
# waits for the last layer's gradients and communication kernels take SMs and memory bandwidth from the computation;
# 0.5 is a conservative gpuplan default.
OVERLAP = 0.5

# Tensor-parallel serving (`serving.py`): the fixed time of one NCCL all-reduce of a small message, by the path its
# GPUs talk over, from published nccl-tests `all_reduce_perf` runs (out-of-place time of the smallest sizes, the
# default eager launch, one process driving every GPU): (path, GPUs, microseconds, source). `comm.latency_fit` fits
# time = a + b (GPUs - 1) to each path's rows (least squares): a ring's latency grows linearly with the ranks (NCCL's
# own cost model, src/graph/tuning.cc: base latency + steps x per-hop latency; kiskra-nvidia on NVIDIA/nccl issue
# 1712: "the latency of ring increases linearly with the communicator size").
# - peer_to_peer: GPUs that write into each other's memory (NVLink, NVLink bridges, AMD Infinity Fabric, PCIe
#   between data-centre and workstation cards). Small-message time is launch and synchronisation, not wire: NVLink
#   and PCIe P2P rows agree (the 8 x RTX PRO 6000 PCIe row is within 4% of the 4 x H100 NVLink row).
# - host_memory: GeForce cards on the stock driver have no PCIe peer-to-peer (the driver reports P2P "NS", not
#   supported: the 2 x RTX 2080 Ti log below; NVIDIA/nccl-tests issue 117, "the 2080ti has never supported p2p";
#   pricing/data/nccl_allreduce.SOURCES.md), so NCCL stages every hop through host memory (its SHM transport):
#   one GPU-to-GPU copy takes ~14 us instead of ~0.4 us (cuda-samples p2pBandwidthLatencyTest, P2P disabled vs
#   enabled, voipmonitor/rtx6kpro hardware/pcie-bandwidth.md@070506ff96a20039f71a067adcb250e8fe3414f8).
# No AMD (RCCL) row was found: Infinity Fabric takes the peer_to_peer fit (extrapolated). The figures are
# conservative for engines that capture the decode step in a CUDA graph (4 x H100: 13.7 us instead of 23.1 us,
# the same repository below, results/symmetric/report.md) or run their own all-reduce kernel on NVLink.
ALL_REDUCE_LATENCY_US: tuple[tuple[str, int, float, str], ...] = (
    ("peer_to_peer", 2, 10.14, "2 x A100 SXM4 40GB, NVLink, 32 B: NVIDIA/nccl issue 583 (2021-10-18)"),
    ("peer_to_peer", 4, 23.30, "4 x H100 SXM, NVSwitch, 8 B, NCCL 2.18.3: waynehacking8/nccl-collectives-bench "
     "results/quiet/all_reduce.txt@8ab7496db79ead1383ff47805c91fcf489c88406"),
    ("peer_to_peer", 8, 24.20, "8 x RTX PRO 6000, PCIe 5.0 P2P behind switches, median NCCL time of 256 B-8 KB "
     "(24.6, 24.1, 24.2): voipmonitor/rtx6kpro hardware/pcie-bandwidth.md@070506ff96a20039f71a067adcb250e8fe3414f8"),
    ("host_memory", 2, 12.25, "2 x RTX 2080 Ti, PCIe 3.0, P2P not supported, 8 B (2025-06-05): "
     "Anthony-Hoo/Anthony-Hoo.github.io posts/AutoDL_Multi-GPU_Interconnection_Test.md"
     "@37e805e8e56f839f6557756d76503d45af6ab47e"),
    ("host_memory", 8, 42.14, "8 x RTX 4090, stock driver 550.127.08, 8 B: NVIDIA/nccl issue 1530 (2024-12-02; "
     "42.56 us with NCCL_ALGO=TREE)"),
)

# Bytes per activation element a serving replica's all-reduces move: 16-bit whatever the weights' precision
# (weight-only int8/int4 quantisation keeps 16-bit activations; for fp8 a gpuplan default, conservative where an
# engine all-reduces in 8 bits).
SERVING_ACTIVATION_BYTES = 2.0

# The slowest a replica may generate and still serve: MLPerf Inference's Server scenario allows at most 200 ms per
# output token (99th percentile) for llama2-70b and mixtral-8x7b, its loosest LLM bound (llama3_1-405b 175 ms,
# llama3_1-8b 100 ms; the interactive variants 15-80 ms): mlcommons/inference loadgen/mlperf.conf
# @001712e9daf80386e0dda43f97b8f36981d792c4, `llama2-70b.Server.tpot_latency = 200`. A tensor-parallel size whose
# decode step (communication included) is slower does not count as serving; a type with no such size is left out.
# Time to first token is not bounded: it grows with the prompt the user gives (MLPerf's 2 s is for its dataset).
SERVING_MAX_TIME_PER_OUTPUT_TOKEN_S = 0.200
