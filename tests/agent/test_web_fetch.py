"""web_fetch against a real HTTP server on loopback: conversion, limits, and the hostile cases
(private addresses, redirects there, DNS that changes its answer, binary bodies, secrets)."""

from __future__ import annotations

import asyncio
import ipaddress
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pydantic import ValidationError

from larik.agent.tools import ToolContext, ToolError, _html, _web, get_tool
from larik.config import WebFetchConfig
from larik.llm import secrets
from tests.loopback import Reply
from tests.patience import WAIT, grown_until_async

TOOL = get_tool("web_fetch")
assert TOOL is not None
LOOPBACK = WebFetchConfig(allow_private=["127.0.0.1"], timeout=WAIT)


async def fetch(url: str, web: WebFetchConfig = LOOPBACK, root=None):
    args = TOOL.args.model_validate({"url": url})
    return await TOOL.run(args, ToolContext(root=root or ".", web=web))


PAGE = """<!doctype html><html><head><title>Guide</title><style>h1{color:red}</style>
<script>steal(document.cookie)</script></head><body>
<h1>Install</h1><p>Run <code>pip install x</code>, then see <a href="/docs">the docs</a>.</p>
<ul><li>one</li><li>two</li></ul><img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==">
<a href="javascript:alert(1)">click</a></body></html>"""


def html(body: str = PAGE, **kw) -> Reply:
    return Reply(body=body, content_type="text/html; charset=utf-8", **kw)


# -- what comes back --------------------------------------------------------------------------
async def test_html_comes_back_as_markdown_without_scripts_styles_or_inline_images(loopback):
    loopback.route("/guide", html())
    result = await fetch(f"{loopback.url}/guide")
    assert not result.is_error
    text = result.content
    assert text.startswith(f"{loopback.url}/guide (text/html, converted to Markdown;")
    assert "# Install" in text and "`pip install x`" in text and "[the docs](/docs)" in text
    assert "- one\n- two" in text
    assert "steal" not in text and "color:red" not in text and "base64" not in text
    assert "javascript:" not in text and "click" in text


async def test_plain_text_and_json_come_back_as_they_are(loopback):
    loopback.route("/a.txt", Reply(body="line <b>1</b>\n", content_type="text/plain"))
    loopback.route("/a.json", Reply(body='{"a": [1, 2]}', content_type="application/json"))
    assert (await fetch(f"{loopback.url}/a.txt")).content.endswith("\n\nline <b>1</b>\n")
    assert (await fetch(f"{loopback.url}/a.json")).content.endswith('\n\n{"a": [1, 2]}')


async def test_the_request_carries_no_credentials_of_the_users(loopback, monkeypatch, tmp_path):
    (tmp_path / ".netrc").write_text("machine 127.0.0.1 login me password hunter2hunter2\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # would break the fetch if used
    loopback.route("/p", html())
    await fetch(f"{loopback.url}/p")
    sent = loopback.requests[0].headers
    assert (
        "authorization" not in sent and "cookie" not in sent and "proxy-authorization" not in sent
    )
    assert sent["host"] == f"127.0.0.1:{loopback.port}" and "Larik" in sent["user-agent"]


async def test_a_known_secret_in_the_page_is_masked(loopback):
    secrets.remember("sk-test-0123456789abcdef")
    loopback.route("/leak", Reply(body="key: sk-test-0123456789abcdef", content_type="text/plain"))
    result = await fetch(f"{loopback.url}/leak")
    assert "sk-test-0123456789abcdef" not in result.content and "key: ***" in result.content


async def test_a_url_holding_a_known_secret_is_never_requested(loopback):
    secrets.remember("sk-test-0123456789abcdef")
    with pytest.raises(ValidationError, match="holds a secret"):
        TOOL.args.model_validate({"url": f"{loopback.url}/?k=sk-test-0123456789abcdef"})
    assert loopback.requests == []


# -- limits -----------------------------------------------------------------------------------
async def test_a_body_past_max_bytes_is_cut_and_not_read_further(loopback):
    big = "a" * 200_000
    loopback.route("/big", Reply(body=big, content_type="text/plain", chunk_size=10_000))
    result = await fetch(f"{loopback.url}/big", LOOPBACK.model_copy(update={"max_bytes": 50_000}))
    assert result.data["truncated"] and result.data["bytes"] == 50_000
    assert "the first 50,000 bytes: the size limit" in result.content
    assert result.content.count("a") < 51_000


async def test_a_long_text_is_cut_to_max_chars_for_the_model(loopback):
    loopback.route("/long", Reply(body="q" * 150_000, content_type="text/plain"))
    result = await fetch(f"{loopback.url}/long")
    assert "[… cut: 150,000 characters in all; the first 100,000 as shown here]" in result.content
    assert result.content.count("q") == 100_000


async def test_a_server_that_stalls_is_given_up_on_at_the_time_limit(loopback):
    loopback.route("/slow", Reply(body=["x", "y"], content_type="text/plain", stall_after=1))

    async def attempt(limit: float) -> float | None:
        asked = len(loopback.requests)
        with pytest.raises(ToolError, match=rf"no complete answer within {limit:g} s"):
            await fetch(f"{loopback.url}/slow", LOOPBACK.model_copy(update={"timeout": limit}))
        return limit if len(loopback.requests) > asked else None  # spent before it was asked

    await grown_until_async(attempt, 0.5)
    assert loopback.wait_disconnect()  # the connection was closed, not left hanging


# -- the HTML conversion: bounded in time and memory (issue 22 item 11) ------------------------
HOSTILE = "<i>a</i>" * 600_000  # 4.8 MB of tiny elements: markdownify took 46 s and 784 MB


def converters() -> list[int]:
    """Process ids of this process's children running the HTML worker."""
    import glob

    out = []
    for path in glob.glob("/proc/self/task/*/children"):
        try:  # a thread that ended since the glob: its folder is gone (seen in CI)
            with open(path) as f:
                children = f.read().split()
        except OSError:
            continue
        for pid in children:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as c:
                    if _html.__file__.encode() in c.read():
                        out.append(int(pid))
            except OSError:
                pass
    return out


def test_the_converter_lookup_skips_a_thread_that_ended_since_the_glob(monkeypatch):
    import glob

    monkeypatch.setattr(glob, "glob", lambda pattern: ["/proc/self/task/0/children"])
    assert converters() == []


async def test_a_huge_page_is_converted_within_the_fetchs_time_limit_or_not_at_all(loopback):
    loopback.route("/huge", html(HOSTILE))

    async def attempt(limit: float) -> tuple[float, str] | None:
        with pytest.raises(ToolError) as caught:
            await fetch(f"{loopback.url}/huge", LOOPBACK.model_copy(update={"timeout": limit}))
        said = str(caught.value)  # the download, on a loaded machine, may spend the limit
        return None if "downloading" in said or "no complete answer" in said else (limit, said)

    limit, said = await grown_until_async(attempt, 1.0)
    assert "4,800,000 bytes of HTML) was not converted" in said
    assert f"longer than the {limit:g} s limit" in said and "stopped" in said
    assert converters() == []  # killed and reaped


def _status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        return {}


async def test_the_converter_meets_its_memory_cap_and_says_so(loopback, monkeypatch):
    cap = 60 * 1024 * 1024
    monkeypatch.setattr(_html, "MAX_MEMORY", cap)
    loopback.route("/huge", html(HOSTILE))
    task = asyncio.ensure_future(fetch(f"{loopback.url}/huge", LOOPBACK))
    peak, seen = 0, set()
    while not task.done():  # the worker's resident memory, sampled while it runs
        for pid in converters():
            status = _status(pid)
            if "VmHWM" in status:
                seen.add(pid)
                peak = max(peak, int(status["VmHWM"].split()[0]) * 1024)
        await asyncio.sleep(0.01)
    with pytest.raises(ToolError, match="needed more than 60 MB of memory"):
        await task
    assert seen and 0 < peak <= cap


async def test_the_converter_sees_at_most_max_html_bytes_scripts_dropped_first(
    loopback, monkeypatch
):
    monkeypatch.setattr(_html, "MAX_HTML", 20_000)
    script = "<script>" + "var x = 1;" * 50_000 + "</script>"
    page = f"<html><head>{script}</head><body>" + "<p>word</p>" * 20_000 + "</body></html>"
    loopback.route("/big", html(page))
    result = await fetch(f"{loopback.url}/big")
    assert "converted to Markdown from its first 20,000 bytes of HTML" in result.content
    assert "var x" not in result.content and 1000 < result.content.count("word") < 2000


async def test_a_page_nested_too_deeply_for_markdown_comes_back_as_its_text(loopback):
    loopback.route("/deep", html("<div>" * 5000 + "deep text" + "</div>" * 5000))
    result = await fetch(f"{loopback.url}/deep")
    assert "its text only: nested too deeply" in result.content
    assert result.content.rstrip().endswith("deep text")


async def test_a_cancelled_fetch_kills_its_converter(loopback):
    loopback.route("/huge", html(HOSTILE))
    task = asyncio.ensure_future(fetch(f"{loopback.url}/huge", LOOPBACK))
    deadline = time.monotonic() + WAIT
    while not converters() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert converters(), "the converter did not start"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert converters() == []


# -- content types ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ctype", "body"),
    [("application/octet-stream", b"\x7fELF\x00\x01"), ("image/png", b"\x89PNG\r\n"), ("", b"x")],
)
async def test_binary_content_is_refused_before_its_body_is_read(loopback, ctype, body):
    loopback.route("/bin", Reply(body=body, content_type=ctype))
    with pytest.raises(ToolError, match="reads HTML \\(as Markdown\\), text and JSON only"):
        await fetch(f"{loopback.url}/bin")


async def test_binary_bytes_labelled_text_are_refused(loopback):
    loopback.route("/fake", Reply(body=b"GIF89a\x00\x00\x01", content_type="text/plain"))
    with pytest.raises(ToolError, match="holds binary data"):
        await fetch(f"{loopback.url}/fake")


async def test_an_http_error_status_is_an_error_naming_it(loopback):
    loopback.route("/gone", Reply(status=404, body="nope", content_type="text/plain"))
    with pytest.raises(ToolError, match="answered HTTP 404 Not Found"):
        await fetch(f"{loopback.url}/gone")


# -- where it may go --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://example.com/", "plain http is only for 127.0.0.1"),
        ("http://10.0.0.1/", "plain http is only for"),
        ("ftp://example.com/x", "not an http\\(s\\) URL"),
        ("file:///etc/passwd", "not an http\\(s\\) URL"),
        ("https://user:pw@example.com/", "user name or password"),
        ("https:///nohost", "not an http\\(s\\) URL with a host"),
    ],
)
def test_urls_web_fetch_never_requests_are_invalid_arguments(url, why):
    with pytest.raises(ValidationError, match=why):
        TOOL.args.model_validate({"url": url})


async def test_loopback_is_refused_unless_the_config_allows_it(loopback):
    loopback.route("/p", html())
    with pytest.raises(ToolError, match=r"resolves to 127\.0\.0\.1, a loopback address"):
        await fetch(f"{loopback.url}/p", WebFetchConfig())
    assert loopback.requests == []


@pytest.mark.parametrize(
    "ip",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # the cloud metadata service
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "::",
        "fe80::1",
        "fd00::1",
        "::ffff:127.0.0.1",  # IPv4-mapped
        "::ffff:169.254.169.254",
        "2002:a9fe:a9fe::1",  # 6to4 around 169.254.169.254
        "64:ff9b::a00:1",  # NAT64 around 10.0.0.1
    ],
)
def test_private_and_special_addresses_are_refused(ip):
    assert _web.refusal(ipaddress.ip_address(ip))
    with pytest.raises(ToolError, match="allow_private"):
        _web.AddressPolicy().check("h.example", [ipaddress.ip_address(ip)])


@pytest.mark.parametrize("ip", ["93.184.215.14", "2606:4700::6810:84e5", "64:ff9b::5db8:d70e"])
def test_public_addresses_pass(ip):
    assert _web.refusal(ipaddress.ip_address(ip)) == ""


def test_one_private_address_among_public_ones_is_enough_to_refuse():
    ips = [ipaddress.ip_address("93.184.215.14"), ipaddress.ip_address("10.0.0.5")]
    with pytest.raises(ToolError, match="10.0.0.5"):
        _web.AddressPolicy().check("mixed.example", ips)


def test_allow_private_takes_networks_and_host_names():
    policy = _web.AddressPolicy.parse(["10.0.0.0/8", "wiki.corp"])
    policy.check("x.example", [ipaddress.ip_address("10.9.8.7")])
    policy.check("wiki.corp", [ipaddress.ip_address("192.168.0.2")])
    with pytest.raises(ToolError):
        policy.check("x.example", [ipaddress.ip_address("192.168.0.2")])


def test_allow_private_entries_are_checked_in_the_config():
    with pytest.raises(ValidationError, match="neither an address"):
        WebFetchConfig(allow_private=["http://10.0.0.1/"])


# -- redirects --------------------------------------------------------------------------------
async def test_a_redirect_on_the_same_host_is_followed(loopback):
    loopback.route(
        "/old", Reply(status=301, headers={"Location": "/new"}, content_type="text/plain")
    )
    loopback.route("/new", html("<p>moved here</p>"))
    result = await fetch(f"{loopback.url}/old")
    assert "moved here" in result.content and result.data["url"] == f"{loopback.url}/new"


async def test_a_redirect_loop_stops_after_five_hops(loopback):
    loopback.route(
        "/loop", Reply(status=302, headers={"Location": "/loop"}, content_type="text/plain")
    )
    with pytest.raises(ToolError, match="more than 5 redirects"):
        await fetch(f"{loopback.url}/loop")
    assert len(loopback.requests) == 6


@pytest.mark.parametrize(
    "location",
    [
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.1/admin",
        "https://[::ffff:127.0.0.1]/",
        "https://0.0.0.0/",
        "http://192.168.1.1/",  # plain http off loopback, too
    ],
)
async def test_a_redirect_to_a_private_address_is_refused(loopback, location):
    loopback.route(
        "/go", Reply(status=302, headers={"Location": location}, content_type="text/plain")
    )
    with pytest.raises(ToolError, match="allow_private|plain http"):
        await fetch(f"{loopback.url}/go")
    assert [r.path for r in loopback.requests] == ["/go"]


async def test_a_redirect_to_another_public_host_is_handed_back_to_the_model(loopback, monkeypatch):
    real = _web.resolve

    async def dns(host, port):
        return (
            [ipaddress.ip_address("93.184.215.14")]
            if host == "example.org"
            else await real(host, port)
        )

    monkeypatch.setattr(_web, "resolve", dns)
    loopback.route(
        "/x",
        Reply(status=302, headers={"Location": "https://example.org/y"}, content_type="text/plain"),
    )
    result = await fetch(f"{loopback.url}/x")
    assert not result.is_error and result.data["redirect"] == "https://example.org/y"
    assert "Call web_fetch with that URL" in result.content


def test_https_to_http_is_a_refused_downgrade():
    with pytest.raises(ToolError, match="redirects to plain http"):
        _web.check_url("http://127.0.0.1/x", came_from="https://127.0.0.1/")


async def test_each_hop_is_resolved_again_so_dns_rebinding_meets_the_check(loopback, monkeypatch):
    answers = [["127.0.0.1"], ["169.254.169.254"]]  # a name that turns hostile after the check

    async def dns(host, port):
        return [ipaddress.ip_address(a) for a in answers.pop(0)]

    monkeypatch.setattr(_web, "resolve", dns)
    loopback.route("/a", Reply(status=302, headers={"Location": "/b"}, content_type="text/plain"))
    loopback.route("/b", html("<p>secret metadata</p>"))
    with pytest.raises(ToolError, match="169.254.169.254, a link-local address"):
        await fetch(f"http://localhost:{loopback.port}/a")
    assert [r.path for r in loopback.requests] == ["/a"]
    assert loopback.requests[0].headers["host"] == f"localhost:{loopback.port}"


# a second server on another loopback address, which no fetch may reach
class _Trap(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:
        _Trap.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *a) -> None:
        pass


async def test_a_loopback_address_not_listed_is_refused_even_when_another_is(loopback):
    trap = ThreadingHTTPServer(("127.0.0.2", 0), _Trap)
    threading.Thread(target=trap.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        port = trap.server_address[1]
        loopback.route(
            "/hop",
            Reply(
                status=307,
                headers={"Location": f"https://127.0.0.2:{port}/"},
                content_type="text/plain",
            ),
        )
        with pytest.raises(ToolError, match=r"127\.0\.0\.2, a loopback address"):
            await fetch(f"{loopback.url}/hop")
        assert _Trap.hits == []
    finally:
        trap.shutdown()
        trap.server_close()


# -- the red-team review's spellings (docs/security.md, "Hostile review") -----------------------
@pytest.mark.parametrize(
    "url",
    [
        "https://2130706433/",  # 127.0.0.1 as one decimal number
        "https://0x7f.1/",  # hex and a short form
        "https://017700000001/",  # octal
        "https://127.1/",
        "https://0x7f000001/",
        "https://0/",  # 0.0.0.0
        "https://[::ffff:7f00:1]/",  # IPv4-mapped, hex
        "https://[0:0:0:0:0:ffff:127.0.0.1]/",
        "https://[::]/",
        "https://169.254.169.254./",  # a trailing dot
        "https://LOCALHOST/",
    ],
)
async def test_every_spelling_of_a_private_address_is_refused_before_the_user_is_asked(url):
    args = TOOL.args.model_validate({"url": url})
    with pytest.raises(ToolError, match="web_fetch does not reach private networks"):
        await TOOL.preview(args, ToolContext(root=".", web=WebFetchConfig()))


@pytest.mark.parametrize(
    "url",
    [
        "https://evil@127.0.0.1/",  # user info: the host is 127.0.0.1, not evil
        "https://example.com\\@127.0.0.1/",  # a backslash parsers disagree on
        "https://example.com:443@127.0.0.1/",
        "https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/",  # circled letters that IDNA maps to localhost
    ],
)
def test_urls_whose_host_parsers_could_disagree_on_are_invalid(url):
    with pytest.raises(ValidationError):
        TOOL.args.model_validate({"url": url})


def test_a_fragment_holding_an_at_sign_does_not_move_the_host():
    args = TOOL.args.model_validate({"url": "https://example.com#@127.0.0.1"})
    assert TOOL.target(args) == "example.com"  # what the permission rules and the dialog see
