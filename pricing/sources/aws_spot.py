"""AWS EC2 spot prices of GPU instances from DescribeSpotPriceHistory (needs AWS credentials).

API: https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeSpotPriceHistory.html
(EC2 Query API, SigV4-signed; XML `DescribeSpotPriceHistoryResponse` with `spotPriceHistorySet` items
`instanceType`, `productDescription`, `spotPrice`, `timestamp`, `availabilityZone`, paged by `nextToken`).
Called through boto3 (`ec2.describe_spot_price_history`), one region at a time, with
ProductDescriptions ["Linux/UNIX"] and StartTime = the refresh clock's now, so AWS answers the price in
force now for every instance type and Availability Zone. We keep the lowest price over the AZs of a region
per instance type (gpuhunt's choice in `providers/aws.py` `_add_spots_worker`; SkyPilot keeps one per AZ).

The answer has no GPU fields: GPU model and count come from the instance tables shared with the on-demand
source (`pricing.sources.aws.AWS_GPU_FAMILIES`, `AWS_GPU_COUNTS`). Instance types of families not in that
table are taken as non-GPU and skipped; types of a GPU family with a GPU we do not price, or a size the
count table lacks, are counted once per (instance type, region) in `unknown_skus`.

Errors: every botocore failure after botocore's own bounded retries (standard mode, `config.retries`
retries, `config.timeout_s` connect/read timeouts) is raised as `SourceError` with the AWS error code:
`ClientError` (throttling, 5xx, AuthFailure...), `BotoCoreError` (timeouts, connection failures) and
`ResponseParserError` (a body that is not EC2 XML). Nothing botocore-specific escapes `fetch`.

boto3 is the optional `aws` extra (`pip install 'gpuplan[aws]'`), imported only when this source fetches: the
service and every other source run without it, and a configured aws_spot source without it fails as a
SourceError saying what to install.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.aws import AWS_GPU_COUNTS, AWS_GPU_FAMILIES, DEFAULT_REGIONS, instance_family
from pricing.sources.base import Source

if TYPE_CHECKING:
    from botocore.config import Config as BotoConfig

PRODUCT_DESCRIPTIONS = ("Linux/UNIX", "Linux/UNIX (Amazon VPC)")  # the second: EC2-Classic era accounts
PAGE_SIZE = 1000  # the API's maximum MaxResults
MAX_PAGES = 1000


def _text(record: Mapping[str, Any], name: str, region: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value:
        raise SourceError(f"AWS spot {region}: a SpotPriceHistory record lacks {name} ({value!r})")
    return value


class AwsSpotSource(Source):
    """Current spot price of GPU instance types, lowest over each region's Availability Zones."""

    key: ClassVar[str] = "aws_spot"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://ec2.{region}.amazonaws.com"  # boto3's regional endpoint
    credentials: ClassVar[tuple[str, ...]] = ("api_key", "api_secret")  # AWS access key id, secret access key
    description: ClassVar[str] = "AWS EC2 spot prices of GPU instances (DescribeSpotPriceHistory, AWS credentials)"

    @property
    def regions(self) -> list[str]:
        return list(self.config.regions or DEFAULT_REGIONS)

    def botocore_config(self) -> BotoConfig:
        """Bounded retries and timeouts from the source's settings (botocore's standard retry mode)."""
        from botocore.config import Config as BotoConfig

        return BotoConfig(
            connect_timeout=self.config.timeout_s, read_timeout=self.config.timeout_s,
            retries={"max_attempts": self.config.retries, "mode": "standard"},
            user_agent_extra="gpuplan",
        )

    def client(self, region: str) -> Any:
        """An EC2 client for `region`, signed with the configured keys only (no ambient AWS profile)."""
        key, secret = self.config.api_key, self.config.api_secret
        if key is None or secret is None:
            raise SourceError("AWS spot: api_key and api_secret (AWS access key id and secret) are not set")
        try:
            import boto3
        except ImportError:
            raise SourceError("AWS spot: needs boto3, the `aws` extra: pip install 'gpuplan[aws]'") from None
        session = boto3.session.Session(
            aws_access_key_id=key.get_secret_value(), aws_secret_access_key=secret.get_secret_value(),
            region_name=region,
        )
        return session.client("ec2", endpoint_url=self.config.base_url or None, config=self.botocore_config())

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        """`http` is unused: EC2 needs SigV4 signing, which boto3 does with its own connection pool."""
        result = FetchResult()
        for region in self.regions:
            lowest: dict[str, tuple[float, str]] = {}  # instance type -> (lowest price, its AZ)
            records = 0
            for record in self._records(self.client(region), region, now):
                records += 1
                self._keep_lowest(record, region, lowest)
            result.rows_seen += records
            if records == 0:
                raise SourceError(f"AWS spot {region}: the answer holds no spot prices at all")
            self._observe(lowest, region, gpus, now, result)
        if not result.observations:
            raise SourceError("AWS spot: no GPU instance spot price in any region")
        return result

    def _records(self, client: Any, region: str, now: dt.datetime) -> Iterator[dict[str, Any]]:
        """Every SpotPriceHistory record of the region, page by page (NextToken)."""
        token = ""
        seen_tokens: set[str] = set()
        for _ in range(MAX_PAGES):
            kwargs: dict[str, Any] = {"ProductDescriptions": ["Linux/UNIX"], "StartTime": now,
                                      "MaxResults": PAGE_SIZE}
            if token:
                kwargs["NextToken"] = token
            page = self._call(client, region, kwargs)
            history = page.get("SpotPriceHistory")
            if not isinstance(history, list):
                raise SourceError(f"AWS spot {region}: answer has no SpotPriceHistory list")
            yield from history
            next_token = page.get("NextToken")
            if not next_token:
                return
            if not isinstance(next_token, str) or next_token in seen_tokens:
                raise SourceError(f"AWS spot {region}: NextToken repeats, the page sequence does not end")
            seen_tokens.add(next_token)
            token = next_token
        raise SourceError(f"AWS spot {region}: more than {MAX_PAGES} pages")

    @staticmethod
    def _call(client: Any, region: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        """One API call; botocore's failures (after its retries) become SourceErrors that say what failed."""
        from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, ReadTimeoutError
        from botocore.parsers import ResponseParserError

        statuses: list[int] = []  # botocore's parse error forgets the HTTP status: remember it for the reason

        def remember_status(response_dict: dict[str, Any], **_: Any) -> None:
            statuses.append(int(response_dict.get("status_code", 0)))

        client.meta.events.register("before-parse.ec2.DescribeSpotPriceHistory", remember_status)
        try:
            page = client.describe_spot_price_history(**kwargs)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            raise SourceError(f"AWS spot {region}: {error.get('Code', 'error')} (HTTP {status}) after retries: "
                              f"{error.get('Message', '')}".rstrip(": ")) from exc
        except (ReadTimeoutError, ConnectTimeoutError) as exc:
            raise SourceError(f"AWS spot {region}: timed out after retries: {exc}") from exc
        except BotoCoreError as exc:
            raise SourceError(f"AWS spot {region}: {type(exc).__name__}: {exc}") from exc
        except ResponseParserError as exc:  # botocore quotes the whole body: keep the reason short
            reason = str(exc).split(", invalid XML received")[0][:160]
            status = f"HTTP {statuses[-1]}, " if statuses else ""
            raise SourceError(f"AWS spot {region}: answer is not EC2 XML ({status}{reason})") from exc
        if not isinstance(page, dict):
            raise SourceError(f"AWS spot {region}: unexpected answer {type(page).__name__}")
        return page

    @staticmethod
    def _keep_lowest(record: Any, region: str, lowest: dict[str, tuple[float, str]]) -> None:
        if not isinstance(record, dict):
            raise SourceError(f"AWS spot {region}: a SpotPriceHistory record is not an object")
        instance = _text(record, "InstanceType", region)
        if instance_family(instance) not in AWS_GPU_FAMILIES:
            return
        if _text(record, "ProductDescription", region) not in PRODUCT_DESCRIPTIONS:
            return
        zone = _text(record, "AvailabilityZone", region)
        text = _text(record, "SpotPrice", region)
        try:
            price = float(text)
        except ValueError:
            raise SourceError(f"AWS spot {region}: {instance} in {zone} has a non-numeric SpotPrice {text!r}") from None
        if instance not in lowest or price < lowest[instance][0]:
            lowest[instance] = (price, zone)

    def _observe(self, lowest: dict[str, tuple[float, str]], region: str, gpus: GpuTable, now: dt.datetime,
                 result: FetchResult) -> None:
        for instance, (price, zone) in sorted(lowest.items()):
            spelling = AWS_GPU_FAMILIES[instance_family(instance)]
            canonical = gpus.canonical(spelling) if spelling else None
            count = AWS_GPU_COUNTS.get(instance)
            if canonical is None or count is None:
                result.unknown_skus[instance] += 1
                continue
            result.observations.append(PriceObservation(
                source=self.key, kind="cloud", gpu=canonical, gpu_count=count, name=instance, usd=price,
                observed_at=now, provider="aws", region=region, pricing="spot",
                reference=f"ec2:DescribeSpotPriceHistory?Region={region}&AvailabilityZone={zone}"
                          f"&InstanceType={instance}",
            ))
