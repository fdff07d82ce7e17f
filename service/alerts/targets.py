"""Which webhook URLs the service may call: no internal addresses unless the operator allows them.

A webhook makes the service send requests to an address a user chose, so without this check anyone who
can subscribe could reach the service's own network (cloud metadata at 169.254.169.254, databases,
admin ports). Every address a host name resolves to is checked, and IPv6 forms that carry an IPv4
address (::ffff:127.0.0.1, 6to4, NAT64, Teredo) are checked as that IPv4 address too. Numeric forms such
as http://2130706433/ resolve to 127.0.0.1 first, so they are caught like any other name.
"""

from __future__ import annotations

import ipaddress
import socket
import urllib.parse
from collections.abc import Iterable, Sequence

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_SCHEMES = ("http", "https")
SETTING_HINT = "allow it with GPUPLAN_ALERTS_ALLOWED_NETWORKS"
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class TargetRefused(ValueError):
    """A webhook URL the service will not call; the message is meant for the user (a 422 detail)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class HostUnresolvable(TargetRefused):
    """The host does not resolve now: refused at subscription time, but only a retryable failure when
    sending (a DNS outage must not fail events for good)."""


def parse_networks(networks: Iterable[str]) -> tuple[IPNetwork, ...]:
    """Host bits are allowed ("10.1.2.3/8"); a malformed entry raises ValueError naming it, so settings can
    be checked at start-up rather than when the first webhook is created."""
    parsed: list[IPNetwork] = []
    for entry in networks:
        try:
            parsed.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"alerts allowed network {entry!r} is not a CIDR network ({exc})") from None
    return tuple(parsed)


def _embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = [ip.ipv4_mapped, ip.sixtofour, ip.teredo[1] if ip.teredo else None]
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [v4 for v4 in found if v4 is not None]


def _category(ip: IPAddress) -> str | None:
    """The kind of non-public address `ip` is, or None for a public one (most specific kind first)."""
    checks = (
        (ip.is_unspecified, "an unspecified"),
        (ip.is_loopback, "a loopback"),
        (ip.is_link_local, "a link-local"),
        (ip.is_multicast, "a multicast"),
        (ip.is_reserved, "a reserved"),
        (ip.is_private, "a private"),
        (not ip.is_global, "a non-public"),  # e.g. 100.64.0.0/10, shared carrier-grade NAT space
    )
    return next((label for hit, label in checks if hit), None)


def address_refusal(ip: IPAddress, allowed: Sequence[IPNetwork]) -> str | None:
    """Why the service must not connect to `ip`, or None if it may. Used before and while connecting."""
    views: list[IPAddress] = [*_embedded_ipv4(ip), ip]  # the IPv4 inside says best where a request would go
    if any(view in network for view in views for network in allowed if view.version == network.version):
        return None
    for view in views:
        category = _category(view)
        if category is not None:
            shown = str(ip) if view == ip else f"{ip} ({view})"
            return f"webhook URL resolves to {shown}, {category} address; {SETTING_HINT}"
    return None


def check_webhook_url(url: str, allowed_networks: Sequence[str]) -> None:
    """Raise TargetRefused (HostUnresolvable if the host does not resolve) unless the service may call `url`.

    Credentials in the URL are refused because they would be stored and shown with the subscription; the
    signature header is how a receiver authenticates the service.
    """
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise TargetRefused("webhook URL must not contain spaces or control characters")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise TargetRefused(f"webhook URL must start with http:// or https://, not {parts.scheme or 'nothing'}")
    if "@" in parts.netloc:
        raise TargetRefused("webhook URL must not contain a user name or password")
    host = parts.hostname
    if not host:
        raise TargetRefused("webhook URL has no host")
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        raise TargetRefused("webhook URL has an invalid port") from None
    allowed = parse_networks(allowed_networks)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise HostUnresolvable(f"webhook host {host} does not resolve") from None
    addresses = {ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos}
    if not addresses:
        raise HostUnresolvable(f"webhook host {host} does not resolve")
    for ip in sorted(addresses, key=lambda a: (a.version, int(a))):
        reason = address_refusal(ip, allowed)
        if reason is not None:
            raise TargetRefused(reason)
