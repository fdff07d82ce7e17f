"""Delivery attempts against real receivers: an HTTP server on loopback and an aiosmtpd SMTP server."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from service.alerts import senders
from service.alerts.senders import EmailSender, SendOutcome, SmtpConfig, WebhookSender
from service.alerts.signing import EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify

LOOPBACK = ["127.0.0.0/8", "::1/128"]
SECRET = "whsec_do-not-leak-this-secret"
NOW = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.UTC)
EVENT_ID = "6f1c2f1e-8a31-4c44-9d67-1f0e8f1f2a10"
BODY = b'{"id": "6f1c2f1e-8a31-4c44-9d67-1f0e8f1f2a10", "type": "test", "summary": "Test alert"}'
PATH = "/hooks/T000/s3cr3t-path-token"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def receiver(server: HTTPServer, status: int = 200, delay_s: float = 0.0,
             headers: dict[str, str] | None = None) -> list[Request]:
    """Answers every POST to PATH with `status`; returns the list the requests are collected in."""
    received: list[Request] = []

    def handle(request: Request) -> Response:
        request.get_data()  # read the body while the connection is open
        received.append(request)
        time.sleep(delay_s)
        return Response("", status=status, headers=headers)

    server.expect_request(PATH, method="POST").respond_with_handler(handle)
    return received


def assert_no_secrets(outcome: SendOutcome) -> None:
    assert outcome.error is not None
    assert SECRET not in outcome.error
    assert "s3cr3t-path-token" not in outcome.error


# --- webhook -------------------------------------------------------------------------------------------


def test_webhook_delivers_a_verifiable_signed_body(server: HTTPServer) -> None:
    received = receiver(server)
    outcome = WebhookSender(LOOPBACK).send(server.url_for(PATH), SECRET, EVENT_ID, BODY, NOW)
    assert outcome == SendOutcome(ok=True, status_code=200, error=None, permanent=False)
    assert len(received) == 1
    request = received[0]
    assert request.get_data() == BODY
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["User-Agent"] == "gpuplan-alerts/1"
    assert request.headers[EVENT_ID_HEADER] == EVENT_ID
    assert request.headers[TIMESTAMP_HEADER] == str(int(NOW.timestamp()))
    signature = request.headers[SIGNATURE_HEADER]
    assert signature.startswith("v1=")
    # what a receiver does with the user guide's verify (docs/alerts.md): the genuine request passes, a changed one
    # does not
    arrived = NOW + dt.timedelta(seconds=2)
    assert verify(SECRET, request.headers[TIMESTAMP_HEADER], request.get_data(), signature, arrived)
    assert not verify(SECRET, request.headers[TIMESTAMP_HEADER], request.get_data() + b" ", signature, arrived)
    assert not verify("whsec_wrong", request.headers[TIMESTAMP_HEADER], request.get_data(), signature, arrived)
    assert SECRET not in str(dict(request.headers))  # the secret itself never travels


def test_webhook_naive_now_is_utc(server: HTTPServer) -> None:
    received = receiver(server, status=204)
    outcome = WebhookSender(LOOPBACK).send(server.url_for(PATH), SECRET, EVENT_ID, BODY, NOW.replace(tzinfo=None))
    assert outcome.ok and outcome.status_code == 204
    assert received[0].headers[TIMESTAMP_HEADER] == str(int(NOW.timestamp()))


@pytest.mark.parametrize(
    ("status", "ok", "permanent"),
    [(200, True, False), (202, True, False), (500, False, False), (503, False, False), (400, False, False),
     (404, False, False), (429, False, False), (410, False, True)],
)
def test_webhook_status_codes(server: HTTPServer, status: int, ok: bool, permanent: bool) -> None:
    received = receiver(server, status=status)
    outcome = WebhookSender(LOOPBACK).send(server.url_for(PATH), SECRET, EVENT_ID, BODY, NOW)
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (ok, status, permanent)
    assert len(received) == 1  # one attempt: the outbox, not the sender, retries
    if not ok:
        assert_no_secrets(outcome)
        assert str(status) in (outcome.error or "")


def test_webhook_redirect_is_a_retryable_failure_and_not_followed(server: HTTPServer) -> None:
    receiver(server, status=302, headers={"Location": server.url_for("/elsewhere")})
    server.expect_request("/elsewhere").respond_with_data("should not be reached")
    outcome = WebhookSender(LOOPBACK).send(server.url_for(PATH), SECRET, EVENT_ID, BODY, NOW)
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (False, 302, False)
    assert "redirect" in (outcome.error or "")
    assert [request.path for request, _ in server.log] == [PATH]


def test_webhook_timeout_is_retryable(server: HTTPServer) -> None:
    receiver(server, delay_s=1.5)
    started = time.monotonic()
    outcome = WebhookSender(LOOPBACK, timeout_s=0.5).send(server.url_for(PATH), SECRET, EVENT_ID, BODY, NOW)
    elapsed = time.monotonic() - started
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (False, None, False)
    assert "0.5 s" in (outcome.error or "")
    assert_no_secrets(outcome)
    assert elapsed < 1.4


def test_webhook_nothing_listening_is_retryable() -> None:
    url = f"http://127.0.0.1:{free_port()}{PATH}"
    outcome = WebhookSender(LOOPBACK, timeout_s=2).send(url, SECRET, EVENT_ID, BODY, NOW)
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (False, None, False)
    assert outcome.error == "connection refused"


def test_webhook_to_loopback_refused_without_allowed_networks(server: HTTPServer) -> None:
    receiver(server)
    outcome = WebhookSender().send(server.url_for(PATH), SECRET, EVENT_ID, BODY, NOW)
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (False, None, True)
    assert "loopback" in (outcome.error or "")
    assert_no_secrets(outcome)
    assert server.log == []  # refused before connecting


def test_webhook_connect_time_guard_catches_a_changed_address(server: HTTPServer,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """As if DNS moved the name to a loopback address between the check and the connect (rebinding)."""
    receiver(server)
    monkeypatch.setattr(senders, "check_webhook_url", lambda url, allowed: None)
    outcome = WebhookSender(["10.0.0.0/8"]).send(server.url_for(PATH), SECRET, EVENT_ID, BODY, NOW)
    assert (outcome.ok, outcome.permanent) == (False, True)
    assert "127.0.0.1, a loopback address" in (outcome.error or "")
    assert server.log == []  # the socket was closed before a byte of the request was sent


def test_webhook_unresolvable_host_is_retryable() -> None:
    outcome = WebhookSender(LOOPBACK).send("http://no-such-host.invalid/hook", SECRET, EVENT_ID, BODY, NOW)
    assert (outcome.ok, outcome.permanent) == (False, False)
    assert "does not resolve" in (outcome.error or "")


def test_webhook_malformed_url_is_permanent() -> None:
    outcome = WebhookSender(LOOPBACK).send("ftp://127.0.0.1/hook", SECRET, EVENT_ID, BODY, NOW)
    assert (outcome.ok, outcome.permanent) == (False, True)


# --- e-mail --------------------------------------------------------------------------------------------


@dataclass
class Mailbox:
    """An aiosmtpd handler that keeps what it accepts; `rcpt_reply`/`data_reply` make it refuse."""

    messages: list[Envelope] = field(default_factory=list)
    rcpt_reply: str | None = None
    data_reply: str | None = None

    async def handle_RCPT(self, server: SMTPServer, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        if self.rcpt_reply:
            return self.rcpt_reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        if self.data_reply:
            return self.data_reply
        self.messages.append(envelope)
        return "250 Message accepted for delivery"


@pytest.fixture
def mailbox() -> Iterator[tuple[Mailbox, int]]:
    handler = Mailbox()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield handler, controller.port
    controller.stop()


def payload(name: str = "H100 watch") -> dict[str, Any]:
    return {
        "id": EVENT_ID, "type": "price.threshold", "created_at": "2026-11-21T10:00:00Z",
        "subscription": {"id": "sub-1", "name": name},
        "summary": "H100 SXM on-demand at aws p5.48xlarge us-east-1 is now 1.95 USD per GPU-hour, under 2.00",
        "data": {"prices": [{"gpu": "H100 SXM", "kind": "cloud", "pricing": "on_demand", "provider": "aws",
                             "name": "p5.48xlarge", "region": "us-east-1", "gpu_count": 8, "usd": 15.6,
                             "usd_per_gpu": 1.95, "previous_usd_per_gpu": 2.4, "change_pct": -18.75,
                             "unit": "USD per GPU-hour", "source": "aws", "observed_at": "2026-11-21T09:58:00Z"}]},
    }


def parsed(envelope: Envelope) -> EmailMessage:
    assert isinstance(envelope.content, bytes)
    message = email.message_from_bytes(envelope.content, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def test_email_is_multipart_text_and_html(mailbox: tuple[Mailbox, int]) -> None:
    handler, port = mailbox
    config = SmtpConfig(host="127.0.0.1", port=port, sender="alerts@gpuplan.test")
    outcome = EmailSender(config).send("lab@example.org", EVENT_ID, payload('Lab <script>alert("x")</script>'))
    assert outcome == SendOutcome(ok=True, status_code=250, error=None)
    assert len(handler.messages) == 1
    envelope = handler.messages[0]
    assert envelope.mail_from == "alerts@gpuplan.test"
    assert envelope.rcpt_tos == ["lab@example.org"]
    message = parsed(envelope)
    assert message.get_content_type() == "multipart/alternative"
    assert message["Subject"] == ("[gpuplan] H100 SXM on-demand at aws p5.48xlarge us-east-1 is now 1.95 USD per "
                                  "GPU-hour, under 2.00")
    assert message["Message-ID"] == f"<{EVENT_ID}@gpuplan>"
    assert message[EVENT_ID_HEADER] == EVENT_ID
    assert message["To"] == "lab@example.org"
    assert message["Date"]
    parts = {part.get_content_type(): part.get_content() for part in message.iter_parts()}
    assert set(parts) == {"text/plain", "text/html"}
    assert "1.95 USD per GPU-hour" in parts["text/plain"]
    assert 'Lab <script>alert("x")</script>' in parts["text/plain"]  # plain text shows it as it is
    assert "<script>" not in parts["text/html"]
    assert "Lab &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in parts["text/html"]
    assert "1.95 USD per GPU-hour" in parts["text/html"]


def test_email_same_event_same_message_id(mailbox: tuple[Mailbox, int]) -> None:
    handler, port = mailbox
    sender = EmailSender(SmtpConfig(host="127.0.0.1", port=port))
    assert sender.send("a@example.org", EVENT_ID, payload()).ok
    assert sender.send("a@example.org", EVENT_ID, payload()).ok
    assert sender.send("a@example.org", "other-event", payload()).ok
    ids = [parsed(envelope)["Message-ID"] for envelope in handler.messages]
    assert ids[0] == ids[1] != ids[2]


@pytest.mark.parametrize(
    ("stage", "reply", "permanent"),
    [
        ("rcpt", "550 5.1.1 No such user here", True),
        ("rcpt", "450 4.2.0 Greylisted, try again later", False),
        ("data", "554 5.7.1 Message rejected as spam", True),
        ("data", "451 4.3.0 Temporary local problem", False),
    ],
)
def test_email_refusals(mailbox: tuple[Mailbox, int], stage: str, reply: str, permanent: bool) -> None:
    handler, port = mailbox
    setattr(handler, f"{stage}_reply", reply)
    outcome = EmailSender(SmtpConfig(host="127.0.0.1", port=port)).send("nobody@example.org", EVENT_ID, payload())
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (False, int(reply[:3]), permanent)
    assert reply[4:] in (outcome.error or "")
    assert handler.messages == []


def test_email_nothing_listening_is_retryable() -> None:
    outcome = EmailSender(SmtpConfig(host="127.0.0.1", port=free_port(), timeout_s=2)).send(
        "lab@example.org", EVENT_ID, payload())
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (False, None, False)
    assert "refused" in (outcome.error or "")


def test_email_login_failure_is_retryable_and_hides_the_password() -> None:
    """A bad SMTP login is the operator's to fix, not a reason to fail the subscriber's event for good;
    the server here even echoes the password back, which must not reach the stored error."""
    password = "hunter2-smtp-password"

    def authenticator(server: SMTPServer, session: Session, envelope: Envelope, mechanism: str,
                      auth_data: Any) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        return AuthResult(success=False, handled=False,
                          message=f"535 5.7.8 bad password {auth_data.password.decode()}")

    controller = Controller(Mailbox(), hostname="127.0.0.1", port=free_port(), authenticator=authenticator,
                            auth_require_tls=False)
    controller.start()
    try:
        config = SmtpConfig(host="127.0.0.1", port=controller.port, username="gpuplan", password=password)
        outcome = EmailSender(config).send("lab@example.org", EVENT_ID, payload())
    finally:
        controller.stop()
    assert (outcome.ok, outcome.status_code, outcome.permanent) == (False, 535, False)
    assert password not in (outcome.error or "")
    assert "***" in (outcome.error or "")
    assert password not in repr(config)


def test_email_header_injection_is_permanent(mailbox: tuple[Mailbox, int]) -> None:
    handler, port = mailbox
    outcome = EmailSender(SmtpConfig(host="127.0.0.1", port=port)).send(
        "lab@example.org\r\nBcc: victim@example.org", EVENT_ID, payload())
    assert (outcome.ok, outcome.permanent) == (False, True)
    assert handler.messages == []
