"""Synthetic but real-format provider answers for the ingest benchmark (bench/ingest.py).

Azure: pages of the Retail Prices API (`Items`, `NextPageLink`, `Count`), every item a Linux GPU VM
consumption price that `pricing.sources.azure` stores, each with a distinct (size, region, spot) key.
AWS: an EC2 Price List region file (`.../AmazonEC2/current/{region}/index.csv`) with the real 5 metadata
rows and the real header, padded with the row variants a real file is mostly made of (Windows, RHEL,
dedicated tenancy, capacity reservations, reserved terms), so parsing cost per byte is realistic.
Only the standard library is used, so the benchmark can import this without the project installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------------------------- Azure

# (armSkuName, meter name, product series, on-demand USD/hour in eastus): sizes pricing.sources.azure maps
AZURE_GPU_SIZES: tuple[tuple[str, str, str, float], ...] = (
    ("Standard_NC6s_v3", "NC6s v3", "NCSv3", 3.06),
    ("Standard_NC12s_v3", "NC12s v3", "NCSv3", 6.12),
    ("Standard_NC24s_v3", "NC24s v3", "NCSv3", 12.24),
    ("Standard_NC4as_T4_v3", "NC4as T4 v3", "NCasv3_T4", 0.526),
    ("Standard_NC64as_T4_v3", "NC64as T4 v3", "NCasv3_T4", 4.352),
    ("Standard_NC24ads_A100_v4", "NC24ads A100 v4", "NCadsA100v4", 3.673),
    ("Standard_NC48ads_A100_v4", "NC48ads A100 v4", "NCadsA100v4", 7.346),
    ("Standard_NC96ads_A100_v4", "NC96ads A100 v4", "NCadsA100v4", 14.692),
    ("Standard_ND40rs_v2", "ND40rs v2", "NDv2", 22.032),
    ("Standard_ND96asr_v4", "ND96asr v4", "NDasrA100v4", 27.197),
    ("Standard_ND96amsr_A100_v4", "ND96amsr A100 v4", "NDamsrA100v4", 32.77),
    ("Standard_ND96isr_H100_v5", "ND96isr H100 v5", "NDisrH100v5", 98.32),
    ("Standard_NV36ads_A10_v5", "NV36ads A10 v5", "NVadsA10v5", 3.2),
    ("Standard_NV72ads_A10_v5", "NV72ads A10 v5", "NVadsA10v5", 6.52),
)
AZURE_REGIONS: tuple[tuple[str, str], ...] = (
    ("eastus", "US East"), ("eastus2", "US East 2"), ("westus2", "US West 2"), ("westeurope", "EU West"),
    ("northeurope", "EU North"), ("southcentralus", "US South Central"), ("japaneast", "JA East"),
    ("australiaeast", "AU East"),
)


def azure_item(index: int) -> dict[str, Any]:
    """Item number `index` of the synthetic catalogue; distinct indexes give distinct observation keys.

    The index walks sizes fastest, then on-demand/spot, then regions; past the real regions the region
    name gets a numeric suffix ("eastus-1"), so 100,000 items never collapse onto one key.
    """
    sku, meter, series, price = AZURE_GPU_SIZES[index % len(AZURE_GPU_SIZES)]
    spot = (index // len(AZURE_GPU_SIZES)) % 2 == 1
    slot = index // (2 * len(AZURE_GPU_SIZES))
    region, location = AZURE_REGIONS[slot % len(AZURE_REGIONS)]
    round_ = slot // len(AZURE_REGIONS)
    if round_:
        region, location = f"{region}-{round_}", f"{location} {round_}"
    usd = round(price * (0.2 if spot else 1.0) * (1 + 0.001 * (slot % 50)), 6)
    name = f"{meter} Spot" if spot else meter
    return {
        "currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": usd, "unitPrice": usd,
        "armRegionName": region, "location": location, "effectiveStartDate": "2024-08-01T00:00:00Z",
        "meterId": f"{index:08x}-5a1e-5b3c-9d2f-{slot:012x}", "meterName": name,
        "productId": f"DZH318Z0{series[:4].upper()}", "skuId": f"DZH318Z0{series[:4].upper()}/{index % 4096:04X}",
        "productName": f"Virtual Machines {series} Series", "skuName": name,
        "serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour", "type": "Consumption", "isPrimaryMeterRegion": True, "armSkuName": sku,
    }


def azure_page(items: int, page: int, pages: int, next_url_prefix: str) -> dict[str, Any]:
    """Page `page` (0-based) of `pages`, each holding `items` items, in the Retail Prices API envelope.

    `NextPageLink` is `next_url_prefix + str(page + 1)` (e.g. prefix "http://127.0.0.1:8080/prices?page="),
    and null on the last page, so a loopback server can answer every page from its number alone.
    """
    first = page * items
    return {
        "BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
        "Items": [azure_item(first + k) for k in range(items)],
        "NextPageLink": f"{next_url_prefix}{page + 1}" if page + 1 < pages else None,
        "Count": items,
    }


# ------------------------------------------------------------------------------------------------ AWS

# The real header of an AmazonEC2 price list CSV (publication 2025-09-12), column for column.
AWS_HEADER: tuple[str, ...] = (
    "SKU", "OfferTermCode", "RateCode", "TermType", "PriceDescription", "EffectiveDate", "StartingRange",
    "EndingRange", "Unit", "PricePerUnit", "Currency", "RelatedTo", "LeaseContractLength", "PurchaseOption",
    "OfferingClass", "Product Family", "serviceCode", "Location", "Location Type", "Instance Type",
    "Current Generation", "Instance Family", "vCPU", "Physical Processor", "Clock Speed", "Memory", "Storage",
    "Network Performance", "Processor Architecture", "Storage Media", "Volume Type", "Max Volume Size",
    "Max IOPS/volume", "Max IOPS Burst Performance", "Max throughput/volume", "Provisioned", "Tenancy",
    "EBS Optimized", "Operating System", "License Model", "Group", "Group Description", "Transfer Type",
    "From Location", "From Location Type", "To Location", "To Location Type", "usageType", "operation",
    "AvailabilityZone", "CapacityStatus", "ClassicNetworkingSupport", "Dedicated EBS Throughput", "ECU",
    "Elastic Graphics Type", "Enhanced Networking Supported", "From Region Code", "GPU", "GPU Memory",
    "Instance", "Instance Capacity - 10xlarge", "Instance Capacity - 12xlarge", "Instance Capacity - 16xlarge",
    "Instance Capacity - 18xlarge", "Instance Capacity - 24xlarge", "Instance Capacity - 2xlarge",
    "Instance Capacity - 32xlarge", "Instance Capacity - 4xlarge", "Instance Capacity - 8xlarge",
    "Instance Capacity - 9xlarge", "Instance Capacity - large", "Instance Capacity - medium",
    "Instance Capacity - metal", "Instance Capacity - xlarge", "instanceSKU", "Intel AVX2 Available",
    "Intel AVX Available", "Intel Turbo Available", "MarketOption", "Normalization Size Factor",
    "Physical Cores", "Pre Installed S/W", "Processor Features", "Product Type", "Region Code",
    "Resource Type", "serviceName", "SnapshotArchiveFeeType", "To Region Code", "Volume API Name",
    "VPCNetworkingSupport",
)
AWS_METADATA: tuple[tuple[str, str], ...] = (
    ("FormatVersion", "v1.0"),
    ("Disclaimer", "This pricing list is for informational purposes only. All prices are subject to the "
     "additional terms included in the pricing pages on http://aws.amazon.com. All Free Tier prices are also "
     "subject to the terms included at https://aws.amazon.com/free/"),
    ("Publication Date", "2025-09-12T22:53:08Z"),
    ("Version", "20250912225308"),
    ("OfferCode", "AmazonEC2"),
)
AWS_REGION_NAMES = {
    "us-east-1": ("US East (N. Virginia)", ""), "us-west-2": ("US West (Oregon)", "USW2-"),
    "eu-west-1": ("EU (Ireland)", "EU-"), "eu-central-1": ("EU (Frankfurt)", "EUC1-"),
    "eu-west-2": ("EU (London)", "EUW2-"), "ap-northeast-1": ("Asia Pacific (Tokyo)", "APN1-"),
}

# (instance type, instance family label, vCPU, memory GiB, GPU count, GPU memory GiB, processor, USD/hour)
AWS_INSTANCES: tuple[tuple[str, str, int, int, int, int, str, float], ...] = (
    ("c6i.large", "Compute optimized", 2, 4, 0, 0, "Intel Xeon 8375C (Ice Lake)", 0.085),
    ("m5.xlarge", "General purpose", 4, 16, 0, 0, "Intel Xeon Platinum 8175", 0.192),
    ("r6i.2xlarge", "Memory optimized", 8, 64, 0, 0, "Intel Xeon 8375C (Ice Lake)", 0.504),
    ("inf2.xlarge", "Machine Learning ASIC Instances", 4, 16, 0, 0, "AMD EPYC 7R13 Processor", 0.7582),
    ("g4dn.xlarge", "GPU instance", 4, 16, 1, 16, "Intel Xeon Platinum 8259 (Cascade Lake)", 0.526),
    ("g4dn.12xlarge", "GPU instance", 48, 192, 4, 64, "Intel Xeon Platinum 8259 (Cascade Lake)", 3.912),
    ("g4dn.metal", "GPU instance", 96, 384, 8, 128, "Intel Xeon Platinum 8259 (Cascade Lake)", 7.824),
    ("g4ad.xlarge", "GPU instance", 4, 16, 1, 8, "AMD EPYC 7R32", 0.37853),
    ("g5.xlarge", "GPU instance", 4, 16, 1, 24, "AMD EPYC 7R32", 1.006),
    ("g5.12xlarge", "GPU instance", 48, 192, 4, 96, "AMD EPYC 7R32", 5.672),
    ("g5.48xlarge", "GPU instance", 192, 768, 8, 192, "AMD EPYC 7R32", 16.288),
    ("g5g.xlarge", "GPU instance", 4, 8, 1, 16, "AWS Graviton2 Processor", 0.42),
    ("g6.xlarge", "GPU instance", 4, 16, 1, 24, "AMD EPYC 7R13 Processor", 0.8048),
    ("g6.12xlarge", "GPU instance", 48, 192, 4, 96, "AMD EPYC 7R13 Processor", 4.6016),
    ("g6e.xlarge", "GPU instance", 4, 32, 1, 48, "AMD EPYC 7R13 Processor", 1.861),
    ("g6e.48xlarge", "GPU instance", 192, 1536, 8, 384, "AMD EPYC 7R13 Processor", 30.13118),
    ("p3.2xlarge", "GPU instance", 8, 61, 1, 16, "Intel Xeon E5-2686 v4 (Broadwell)", 3.06),
    ("p3.16xlarge", "GPU instance", 64, 488, 8, 128, "Intel Xeon E5-2686 v4 (Broadwell)", 24.48),
    ("p3dn.24xlarge", "GPU instance", 96, 768, 8, 256, "Intel Xeon Platinum 8175 (Skylake)", 31.212),
    ("p4d.24xlarge", "GPU instance", 96, 1152, 8, 320, "Intel Xeon Platinum 8275L", 32.7726),
    ("p4de.24xlarge", "GPU instance", 96, 1152, 8, 640, "Intel Xeon Platinum 8275L", 40.96575),
    ("p5.48xlarge", "GPU instance", 192, 2048, 8, 640, "AMD EPYC 7R13 Processor", 98.32),
    ("p5en.48xlarge", "GPU instance", 192, 2048, 8, 1128, "Intel Sapphire Rapids", 84.8),
)

# (TermType, Operating System, Tenancy, CapacityStatus, Pre Installed S/W, operation, price factor, lease)
# The first variant is the one pricing.sources.aws keeps; the others are what fills a real file.
AWS_VARIANTS: tuple[tuple[str, str, str, str, str, str, float, str], ...] = (
    ("OnDemand", "Linux", "Shared", "Used", "NA", "RunInstances", 1.0, ""),
    ("OnDemand", "Windows", "Shared", "Used", "NA", "RunInstances:0002", 1.18, ""),
    ("OnDemand", "RHEL", "Shared", "Used", "NA", "RunInstances:0010", 1.06, ""),
    ("OnDemand", "Linux", "Dedicated", "Used", "NA", "RunInstances", 1.1, ""),
    ("OnDemand", "Linux", "Shared", "UnusedCapacityReservation", "NA", "RunInstances", 1.0, ""),
    ("OnDemand", "Linux", "Shared", "AllocatedCapacityReservation", "NA", "RunInstances", 0.0, ""),
    ("OnDemand", "Windows", "Shared", "Used", "SQL Web", "RunInstances:0202", 1.4, ""),
    ("Reserved", "Linux", "Shared", "Used", "NA", "RunInstances", 0.62, "1yr"),
    ("Reserved", "Linux", "Shared", "Used", "NA", "RunInstances", 0.41, "3yr"),
)


def aws_row(region: str, instance: tuple[str, str, int, int, int, int, str, float],
            variant: tuple[str, str, str, str, str, str, float, str], sku: str) -> list[str]:
    """One price-list row, every column of AWS_HEADER in place, as the real file writes it."""
    itype, family, vcpu, memory, gpus, gpu_memory, processor, price = instance
    term, os_name, tenancy, capacity, software, operation, factor, lease = variant
    location, usage_prefix = AWS_REGION_NAMES[region]
    usd = price * factor
    usage = {"Shared": "BoxUsage", "Dedicated": "DedicatedUsage"}[tenancy]
    if capacity != "Used":
        usage = {"UnusedCapacityReservation": "UnusedBox", "AllocatedCapacityReservation": "ReservedHostUsage"}[
            capacity]
    values = {
        "SKU": sku, "OfferTermCode": "JRTCKXETXF" if term == "OnDemand" else "38NPMPTW36",
        "RateCode": f"{sku}.{'JRTCKXETXF' if term == 'OnDemand' else '38NPMPTW36'}.6YS6EN2CT7",
        "TermType": term,
        "PriceDescription": f"${usd:.4f} per {'On Demand ' if term == 'OnDemand' else ''}{os_name} {itype} "
                            "Instance Hour",
        "EffectiveDate": "2025-09-01", "StartingRange": "0", "EndingRange": "Inf", "Unit": "Hrs",
        "PricePerUnit": f"{usd:.10f}", "Currency": "USD", "LeaseContractLength": lease,
        "PurchaseOption": "No Upfront" if lease else "", "OfferingClass": "standard" if lease else "",
        "Product Family": "Compute Instance (bare metal)" if itype.endswith(".metal") else "Compute Instance",
        "serviceCode": "AmazonEC2", "Location": location, "Location Type": "AWS Region", "Instance Type": itype,
        "Current Generation": "Yes", "Instance Family": family, "vCPU": str(vcpu),
        "Physical Processor": processor, "Clock Speed": "3.5 GHz", "Memory": f"{memory} GiB",
        "Storage": "EBS only", "Network Performance": "Up to 25 Gigabit", "Processor Architecture": "64-bit",
        "Tenancy": tenancy, "EBS Optimized": "Yes", "Operating System": os_name,
        "License Model": "No License required", "usageType": f"{usage_prefix}{usage}:{itype}",
        "operation": operation, "AvailabilityZone": "NA", "CapacityStatus": capacity,
        "ClassicNetworkingSupport": "false", "Dedicated EBS Throughput": "Up to 10000 Mbps", "ECU": "NA",
        "Enhanced Networking Supported": "Yes", "GPU": str(gpus) if gpus else "",
        "GPU Memory": f"{gpu_memory} GiB" if gpus else "NA", "Instance": itype.split(".")[0].upper(),
        "instanceSKU": sku, "Intel AVX2 Available": "Yes", "Intel AVX Available": "Yes",
        "Intel Turbo Available": "Yes", "MarketOption": "OnDemand", "Normalization Size Factor": "8",
        "Physical Cores": "", "Pre Installed S/W": software,
        "Processor Features": "Intel AVX; Intel AVX2; Intel Turbo", "Region Code": region,
        "serviceName": "Amazon Elastic Compute Cloud", "VPCNetworkingSupport": "true",
    }
    return [values.get(name, "") for name in AWS_HEADER]


def _aws_block(region: str, block: str, keep_first_variant: bool) -> tuple[str, int]:
    """CSV text of one row per (instance, variant); `block` makes the SKUs of this block distinct."""
    lines: list[str] = []
    for i, instance in enumerate(AWS_INSTANCES):
        for j, variant in enumerate(AWS_VARIANTS):
            if j == 0 and not keep_first_variant:
                continue
            lines.append(aws_csv_line(aws_row(region, instance, variant, f"{block}{i:03d}{j:02d}")))
    return "".join(lines), len(lines)


def aws_csv_line(cells: list[str]) -> str:
    """A row as AWS writes it: non-empty cells quoted, empty cells bare (`"USD",,,"Compute Instance"`)."""
    return ",".join('"' + cell.replace('"', '""') + '"' if cell else "" for cell in cells) + "\n"


def write_aws_region_csv(path: str | Path, min_bytes: int, region: str = "us-east-1") -> int:
    """Write an EC2 price-list region file of at least `min_bytes`; return its number of price rows.

    The first block holds every GPU instance's kept row (on-demand Linux, shared, used) once; padding
    blocks hold only the rows a parser must skip, with distinct SKUs. Padding is one pre-rendered block
    written repeatedly with its SKU prefix replaced, so 500 MB take a few seconds.
    """
    head = "".join(aws_csv_line([name, value]) for name, value in AWS_METADATA) + aws_csv_line(list(AWS_HEADER))
    first, rows = _aws_block(region, "FIRST0", keep_first_variant=True)
    template, block_rows = _aws_block(region, "@BLK@", keep_first_variant=False)
    with open(path, "w", encoding="utf-8", newline="") as f:
        written = f.write(head) + f.write(first)
        number = 0
        while written < min_bytes:
            # several blocks per write call: fewer, larger writes
            chunk = "".join(template.replace("@BLK@", f"P{number + k:05X}") for k in range(16))
            written += f.write(chunk)
            number += 16
            rows += 16 * block_rows
    return rows
