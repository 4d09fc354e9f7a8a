"""The clients on TLS: the browser's page through HAProxy's TLS frontend (compose's topology, the
certificate made by its own step) opens ``wss://`` to the same host and port and says hello; the
terminal client's ``--server`` and ``--ca``."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.__main__ import parse
from tests.browser_pages import WAIT_MS, chromium, js
from tests.haproxy_proc import HAProxyProcess, make_certificate
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess


@pytest.fixture
def balanced(redis_proc: RedisProcess) -> Iterator[HAProxyProcess]:
    nodes = [ServerProcess("--redis", redis_proc.url) for _ in range(2)]
    balancer = HAProxyProcess([f"127.0.0.1:{node.port}" for node in nodes])
    try:
        yield balancer
    finally:
        balancer.close()
        for node in nodes:
            node.close()


async def test_the_page_on_https_races_over_wss_to_the_same_host(balanced: HAProxyProcess) -> None:
    async with chromium() as browser:
        context = await browser.new_context(ignore_https_errors=True)  # the self-signed certificate
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        # HAProxy sends nothing before two health checks passed: ask again until the page is there.
        for _ in range(40):
            answer = await page.goto(balanced.https + "/")
            if answer is not None and answer.status == 200:
                break
            await page.wait_for_timeout(250)
        assert answer is not None and answer.status == 200
        await page.fill("#name", "Ann")
        await page.click("text=Continue")
        await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
        assert await js(page, "window.seahaven.conn.url") == f"wss://127.0.0.1:{balanced.tls_port}/"
        assert errors == []
        await context.close()


def test_the_terminal_clients_server_and_ca_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``seahaven-client --server wss://... --ca FILE``: the address, and a context trusting the file
    (the wss:// race through HAProxy with it: tests/test_deploy.py)."""
    _, ca = make_certificate(tmp_path)
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    args = parse(["--server", "wss://127.0.0.1:8443", "--ca", str(ca)])
    assert args.server == "wss://127.0.0.1:8443" and isinstance(args.tls, ssl.SSLContext)
    assert args.tls.cert_store_stats()["x509_ca"] >= 1
    assert parse(["ws://h:1"]).tls is None and parse(["ws://h:1"]).server == "ws://h:1"
    for argv, said in (
        (["ws://a:1", "--server", "ws://b:1"], "give the server once"),
        (["--ca", str(tmp_path / "none.pem")], "not a PEM certificate file"),
        (["--ca", str(tmp_path / "junk.pem")], "not a PEM certificate file"),
    ):
        with pytest.raises(SystemExit):
            parse(argv)
        assert said in capsys.readouterr().err
