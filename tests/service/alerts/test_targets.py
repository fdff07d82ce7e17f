"""Webhook target safety: internal addresses are refused unless the operator allows their network.

Every URL here uses a literal or numeric address (or `localhost`), which resolves without DNS."""

from __future__ import annotations

import re

import pytest

from service.alerts.targets import HostUnresolvable, TargetRefused, check_webhook_url, parse_networks


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("http://127.0.0.1:8080/hook", "loopback"),
        ("https://127.3.2.1/hook", "loopback"),
        ("http://localhost/hook", "loopback"),
        ("http://2130706433/", "loopback"),  # 127.0.0.1 as one decimal number
        ("http://0x7f.1/", "loopback"),
        ("http://127.1/", "loopback"),
        ("http://[::1]:9000/hook", "loopback"),
        ("http://[::ffff:127.0.0.1]/hook", "loopback"),  # IPv4-mapped IPv6
        ("http://[64:ff9b::7f00:1]/hook", "loopback"),  # NAT64
        ("http://[2002:7f00:1::1]/hook", "loopback"),  # 6to4
        ("http://10.0.0.5/hook", "private"),
        ("http://172.16.3.4/hook", "private"),
        ("http://192.168.1.10/hook", "private"),
        ("http://[::ffff:192.168.1.10]/hook", "private"),
        ("http://[fc00::1]/hook", "private"),
        ("http://[fd12:3456::1]/hook", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),  # cloud metadata
        ("http://[fe80::1]/hook", "link-local"),
        ("http://0.0.0.0/hook", "unspecified"),
        ("http://[::]/hook", "unspecified"),
        ("http://224.0.0.1/hook", "multicast"),
        ("http://[ff02::1]/hook", "multicast"),
        ("http://240.0.0.1/hook", "reserved"),
        ("http://100.64.0.1/hook", "non-public"),  # carrier-grade NAT
    ],
)
def test_internal_addresses_refused(url: str, kind: str) -> None:
    with pytest.raises(TargetRefused) as refused:
        check_webhook_url(url, [])
    assert f"a {kind} address" in str(refused.value) or f"an {kind} address" in str(refused.value)
    assert "GPUPLAN_ALERTS_ALLOWED_NETWORKS" in str(refused.value)
    assert not isinstance(refused.value, HostUnresolvable)


def test_message_names_the_address() -> None:
    with pytest.raises(TargetRefused, match=r"resolves to 127\.0\.0\.1, a loopback address"):
        check_webhook_url("http://127.0.0.1/hook", [])


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:8080/hook", ["127.0.0.0/8"]),
        ("http://127.0.0.1:8080/hook", ["127.0.0.1/32"]),
        ("http://2130706433/", ["127.0.0.0/8"]),
        ("http://[::1]/hook", ["::1/128"]),
        ("http://[::ffff:127.0.0.1]/hook", ["127.0.0.0/8"]),
        ("http://10.1.2.3/hook", ["192.168.0.0/16", "10.1.0.0/16"]),
        ("http://10.1.2.3/hook", [" 10.1.2.3/8 "]),  # host bits and spaces tolerated
    ],
)
def test_allowed_networks_let_internal_addresses_through(url: str, allowed: list[str]) -> None:
    check_webhook_url(url, allowed)


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://10.2.0.1/hook", ["10.1.0.0/16"]),  # a different private network stays refused
        ("http://[::1]/hook", ["127.0.0.0/8"]),  # allowing IPv4 loopback does not allow IPv6 loopback
        ("http://169.254.169.254/", ["127.0.0.0/8", "10.0.0.0/8"]),
    ],
)
def test_allowed_networks_are_not_wider_than_given(url: str, allowed: list[str]) -> None:
    with pytest.raises(TargetRefused):
        check_webhook_url(url, allowed)


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.216.34/hook",
        "https://93.184.216.34:8443/hooks/abc?x=1",
        "HTTPS://93.184.216.34/",
        "http://[2606:2800:220:1:248:1893:25c8:1946]/hook",
        "http://[2002:5db8:d822::1]/hook",  # 6to4 of a public address
    ],
)
def test_public_addresses_pass(url: str) -> None:
    check_webhook_url(url, [])


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://93.184.216.34/hook", "http:// or https://"),
        ("file:///etc/passwd", "http:// or https://"),
        ("javascript:alert(1)", "http:// or https://"),
        ("gopher://93.184.216.34:70/", "http:// or https://"),
        ("93.184.216.34/hook", "http:// or https://"),
        ("", "http:// or https://"),
        ("http://", "no host"),
        ("http:///hook", "no host"),
        ("http://user:pass@93.184.216.34/hook", "user name or password"),
        ("http://token@93.184.216.34/hook", "user name or password"),
        ("http://127.0.0.1\\@93.184.216.34/", "user name or password"),
        ("http://93.184.216.34:99999/", "invalid port"),
        ("http://93.184.216.34/ho ok", "spaces or control characters"),
        ("http://93.184.216.34/hook\r\nX-Injected: 1", "spaces or control characters"),
    ],
)
def test_malformed_urls_refused(url: str, message: str) -> None:
    with pytest.raises(TargetRefused, match=re.escape(message)):
        check_webhook_url(url, [])


def test_unresolvable_host_refused() -> None:
    with pytest.raises(HostUnresolvable, match="does not resolve"):
        check_webhook_url("http://no-such-host.invalid/hook", [])


def test_refusals_are_value_errors_for_422_handling() -> None:
    assert issubclass(TargetRefused, ValueError)
    assert issubclass(HostUnresolvable, TargetRefused)


def test_bad_allowed_network_setting_names_the_entry() -> None:
    with pytest.raises(ValueError, match=re.escape("'10.0.0.0/33'")):
        parse_networks(["127.0.0.0/8", "10.0.0.0/33"])
    with pytest.raises(ValueError, match="'loopback'") as bad:
        check_webhook_url("http://93.184.216.34/", ["loopback"])
    assert not isinstance(bad.value, TargetRefused)  # an operator's mistake, not the user's 422
