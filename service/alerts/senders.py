"""One delivery attempt of an alert event, by webhook or by e-mail, reported as a SendOutcome.

The senders never retry: the outbox decides when to try again, so an attempt must end quickly and say
whether another attempt could help (`permanent`). Error texts are short, built here rather than copied
from exceptions, so they hold neither the webhook secret, the SMTP password nor the webhook URL (whose
path is often a secret token of its own).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import smtplib
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NewConnectionError

from service.alerts.messages import render_email
from service.alerts.signing import EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, sign
from service.alerts.targets import (
    HostUnresolvable,
    IPNetwork,
    TargetRefused,
    address_refusal,
    check_webhook_url,
    parse_networks,
)

USER_AGENT = "gpuplan-alerts/1"
_ERROR_MAX_CHARS = 200


@dataclass(frozen=True)
class SendOutcome:
    ok: bool
    status_code: int | None
    error: str | None
    permanent: bool = False  # retrying cannot help: 410 Gone, a refused target, a refused recipient


# --- webhook -------------------------------------------------------------------------------------------


class _PeerRefused(NewConnectionError):
    """The connected address is not allowed: DNS changed between the check and the connect (rebinding)."""

    def __init__(self, conn: HTTPConnection, reason: str) -> None:
        super().__init__(conn, reason)
        self.reason = reason


class _GuardedConnectionMixin:
    """Checks the address actually connected to, which no earlier DNS look-up can guarantee."""

    allowed: tuple[IPNetwork, ...] = ()

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        peer = ipaddress.ip_address(str(sock.getpeername()[0]).split("%", 1)[0])
        reason = address_refusal(peer, self.allowed)
        if reason is not None:
            sock.close()
            raise _PeerRefused(self, reason)  # type: ignore[arg-type]
        return sock


class _GuardedAdapter(HTTPAdapter):
    def __init__(self, allowed: tuple[IPNetwork, ...]) -> None:
        attrs = {"allowed": allowed}
        http_conn = type("GuardedHTTPConnection", (_GuardedConnectionMixin, HTTPConnection), attrs)
        https_conn = type("GuardedHTTPSConnection", (_GuardedConnectionMixin, HTTPSConnection), attrs)
        self._pool_classes = {
            "http": type("GuardedHTTPConnectionPool", (HTTPConnectionPool,), {"ConnectionCls": http_conn}),
            "https": type("GuardedHTTPSConnectionPool", (HTTPSConnectionPool,), {"ConnectionCls": https_conn}),
        }
        super().__init__(max_retries=0)  # calls init_poolmanager, so the pool classes must exist first

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = self._pool_classes


def _peer_refusal(exc: BaseException) -> str | None:
    """The reason of a _PeerRefused somewhere inside what requests raised (it wraps urllib3's errors)."""
    seen: set[int] = set()
    stack: list[object] = [exc]
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, _PeerRefused):
            return item.reason
        stack += [*item.args, getattr(item, "reason", None), item.__cause__, item.__context__]
    return None


def _connection_error(exc: requests.RequestException, timeout_s: float) -> str:
    if isinstance(exc, requests.ConnectTimeout):
        return f"connecting timed out after {timeout_s:g} s"
    if isinstance(exc, requests.Timeout):
        return f"no answer within {timeout_s:g} s"
    if isinstance(exc, requests.exceptions.SSLError):
        return "TLS error: " + ("certificate verification failed" if "CERTIFICATE_VERIFY_FAILED" in str(exc)
                                else "handshake failed")
    if isinstance(exc, requests.ConnectionError):
        text = str(exc)
        if "NameResolutionError" in text or "Name or service not known" in text:
            return "host does not resolve"
        if "Connection refused" in text:
            return "connection refused"
        if "RemoteDisconnected" in text or "Connection aborted" in text:
            return "connection closed without an answer"
        return "connection failed"
    return f"request failed ({type(exc).__name__})"


class WebhookSender:
    """Posts signed event bodies. Redirects are not followed: a redirect could lead to an address the target
    check never saw, and the receiver should be configured with its final URL."""

    def __init__(self, allowed_networks: Sequence[str] = (), timeout_s: float = 10.0) -> None:
        self.allowed_networks = tuple(allowed_networks)
        self.timeout_s = timeout_s
        self.session = requests.Session()
        # no proxies or .netrc credentials from the environment: they would bypass the target check or
        # hand the operator's credentials to a user's receiver
        self.session.trust_env = False
        adapter = _GuardedAdapter(parse_networks(self.allowed_networks))
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)

    def send(self, url: str, secret: str, event_id: str, body: bytes, now: dt.datetime) -> SendOutcome:
        try:
            check_webhook_url(url, self.allowed_networks)  # again: the name may resolve elsewhere by now
        except HostUnresolvable as exc:
            return SendOutcome(ok=False, status_code=None, error=exc.reason)
        except TargetRefused as exc:
            return SendOutcome(ok=False, status_code=None, error=exc.reason, permanent=True)
        if now.tzinfo is None:
            now = now.replace(tzinfo=dt.UTC)
        timestamp = int(now.timestamp())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            SIGNATURE_HEADER: sign(secret, timestamp, body),
            TIMESTAMP_HEADER: str(timestamp),
            EVENT_ID_HEADER: event_id,
        }
        try:
            # stream: the answer's body is never read, so a receiver cannot make us download anything
            with self.session.post(url, data=body, headers=headers, timeout=self.timeout_s,
                                   allow_redirects=False, stream=True) as response:
                status = response.status_code
        except requests.RequestException as exc:
            refusal = _peer_refusal(exc)
            if refusal is not None:
                return SendOutcome(ok=False, status_code=None, error=refusal, permanent=True)
            return SendOutcome(ok=False, status_code=None, error=_connection_error(exc, self.timeout_s))
        if 200 <= status < 300:
            return SendOutcome(ok=True, status_code=status, error=None)
        if 300 <= status < 400:
            return SendOutcome(ok=False, status_code=status, error=f"HTTP {status}: redirects are not followed")
        if status == 410:
            return SendOutcome(ok=False, status_code=status, error="HTTP 410: the receiver is gone", permanent=True)
        return SendOutcome(ok=False, status_code=status, error=f"HTTP {status}")

    def close(self) -> None:
        self.session.close()


# --- e-mail --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int = 25
    sender: str = "gpuplan@localhost"
    username: str | None = None
    password: str | None = None
    starttls: bool = False
    use_ssl: bool = False
    timeout_s: float = 10.0

    def __repr__(self) -> str:  # keeps the password out of logs and tracebacks
        return (f"SmtpConfig(host={self.host!r}, port={self.port}, sender={self.sender!r}, "
                f"username={self.username!r}, password={'***' if self.password else None}, "
                f"starttls={self.starttls}, use_ssl={self.use_ssl}, timeout_s={self.timeout_s})")


def build_email(sender: str, to: str, event_id: str, payload: dict[str, Any], now: dt.datetime | None = None
                ) -> EmailMessage:
    """The Message-ID comes from the event id, so a mail sent twice (at-least-once) is one mail to clients
    that de-duplicate on it."""
    subject, text, html_body = render_email(payload)
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = sender
    message["To"] = to
    message["Date"] = format_datetime(now or dt.datetime.now(dt.UTC))
    message["Message-ID"] = f"<{event_id}@gpuplan>"
    message[EVENT_ID_HEADER] = event_id
    message.set_content(text)
    message.add_alternative(html_body, subtype="html")
    return message


class EmailSender:
    """Sends over SMTP, one connection per mail (alerts are rare; a kept connection would go stale).

    Only refusals that concern this recipient or this mail (5xx to RCPT or DATA) are permanent. Other
    5xx answers (authentication, sender address, STARTTLS) are the operator's configuration, which can be
    fixed before the outbox gives up, so they stay retryable instead of failing every subscriber's event.
    """

    def __init__(self, config: SmtpConfig) -> None:
        self.config = config

    def send(self, to: str, event_id: str, payload: dict[str, Any]) -> SendOutcome:
        try:
            message = build_email(self.config.sender, to, event_id, payload)
        except ValueError as exc:  # e.g. a line break in an address or the event id
            return SendOutcome(ok=False, status_code=None, error=self._clean(f"invalid mail header: {exc}"),
                               permanent=True)
        try:
            self._deliver(message, to)
        except (OSError, smtplib.SMTPException) as exc:
            return self._failure(exc)
        return SendOutcome(ok=True, status_code=250, error=None)  # send_message raises unless DATA got 250

    def _deliver(self, message: EmailMessage, to: str) -> None:
        cfg = self.config
        smtp: smtplib.SMTP
        if cfg.use_ssl:
            smtp = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=cfg.timeout_s, context=ssl.create_default_context())
        else:
            smtp = smtplib.SMTP(cfg.host, cfg.port, timeout=cfg.timeout_s)
        with smtp:
            if cfg.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if cfg.username:
                smtp.login(cfg.username, cfg.password or "")
            smtp.send_message(message, from_addr=cfg.sender, to_addrs=[to])

    def _failure(self, exc: OSError | smtplib.SMTPException) -> SendOutcome:
        where = f"{self.config.host}:{self.config.port}"
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            code, answer = next(iter(exc.recipients.values()), (550, b"recipient refused"))
            return self._refused(code, answer, "recipient refused", permanent=code >= 500)
        if isinstance(exc, smtplib.SMTPResponseException):
            what = {smtplib.SMTPDataError: "message refused", smtplib.SMTPAuthenticationError: "SMTP login failed",
                    smtplib.SMTPSenderRefused: "sender address refused"}.get(type(exc), "SMTP server refused")
            permanent = isinstance(exc, smtplib.SMTPDataError) and exc.smtp_code >= 500
            return self._refused(exc.smtp_code, exc.smtp_error, what, permanent=permanent)
        if isinstance(exc, smtplib.SMTPNotSupportedError):
            error = "SMTP server does not support STARTTLS or login"
        elif isinstance(exc, smtplib.SMTPServerDisconnected):
            error = f"SMTP server {where} closed the connection"
        elif isinstance(exc, TimeoutError):
            error = f"SMTP server {where} did not answer within {self.config.timeout_s:g} s"
        elif isinstance(exc, ssl.SSLError):
            error = f"TLS error talking to the SMTP server {where}"
        elif isinstance(exc, ConnectionRefusedError):
            error = f"SMTP connection to {where} refused"
        else:
            error = f"SMTP connection to {where} failed ({type(exc).__name__})"
        return SendOutcome(ok=False, status_code=None, error=self._clean(error))

    def _refused(self, code: int, answer: bytes | str, what: str, permanent: bool) -> SendOutcome:
        text = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else str(answer)
        return SendOutcome(ok=False, status_code=code, error=self._clean(f"{what}: {code} {text}"),
                           permanent=permanent)

    def _clean(self, text: str) -> str:
        """One short line, without the password (a server may echo what it was sent)."""
        text = " ".join(text.split())
        if self.config.password:
            text = text.replace(self.config.password, "***")
        return text[:_ERROR_MAX_CHARS]
