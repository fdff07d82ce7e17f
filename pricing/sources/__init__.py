"""Price sources: one module per provider, each parsing that provider's real response format.

`SOURCE_CLASSES` names them all; `build_sources` instantiates them with their configuration. Sources
that need credentials are built too (so `/v1/sources` can say what is missing) but stay disabled.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from pricing.sources.base import Source, SourceConfig

# key -> "module:Class"; imported on demand so one source's optional dependency never breaks the others
SOURCE_CLASSES: dict[str, str] = {
    "azure": "pricing.sources.azure:AzureSource",
    "aws": "pricing.sources.aws:AwsPriceListSource",
    "vast": "pricing.sources.vast:VastSource",
    "runpod": "pricing.sources.runpod:RunPodSource",
    "aws_spot": "pricing.sources.aws_spot:AwsSpotSource",
    "gcp": "pricing.sources.gcp:GcpSource",
    "lambda": "pricing.sources.lambda_cloud:LambdaSource",
    "ebay": "pricing.sources.ebay:EbaySource",
    "feed": "pricing.sources.feed:FeedSource",
    "ecb": "pricing.sources.ecb:EcbSource",
    "gpuhunt": "pricing.sources.gpuhunt:GpuHuntSource",
    "skypilot_cudo": "pricing.sources.skypilot:SkyPilotCudo",
    "skypilot_hyperbolic": "pricing.sources.skypilot:SkyPilotHyperbolic",
    "skypilot_hyperstack": "pricing.sources.skypilot:SkyPilotHyperstack",
    "skypilot_jarvislabs": "pricing.sources.skypilot:SkyPilotJarvisLabs",
    "skypilot_seeweb": "pricing.sources.skypilot:SkyPilotSeeweb",
    "skypilot_lambda": "pricing.sources.skypilot:SkyPilotLambda",
    "skypilot_nebius": "pricing.sources.skypilot:SkyPilotNebius",
    "skypilot_oci": "pricing.sources.skypilot:SkyPilotOci",
    "skypilot_runpod": "pricing.sources.skypilot:SkyPilotRunPod",
    "skypilot_verda": "pricing.sources.skypilot:SkyPilotVerda",
    "skypilot_vast": "pricing.sources.skypilot:SkyPilotVast",
}


def source_class(key: str) -> type[Source]:
    module, _, name = SOURCE_CLASSES[key].partition(":")
    cls: type[Source] = getattr(importlib.import_module(module), name)
    return cls


def build_sources(configs: Mapping[str, SourceConfig] | None = None) -> list[Source]:
    """Every known source with its configuration (defaults where none is given); unknown keys are an error."""
    configs = dict(configs or {})
    unknown = sorted(set(configs) - set(SOURCE_CLASSES))
    if unknown:
        raise ValueError(f"unknown price sources in configuration: {unknown}; known: {sorted(SOURCE_CLASSES)}")
    return [source_class(key)(configs.get(key)) for key in SOURCE_CLASSES]
