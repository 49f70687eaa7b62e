"""Where web_fetch may connect, and the fetch itself: every hop checked, the checked address
used.

The rules, for each request (the first and every redirect hop):

- **Scheme.** https; plain http only for a literal loopback host (``127.0.0.1``, ``::1``,
  ``localhost``: :mod:`larik.llm.net`, the rule provider base URLs meet); no ``user:pass@``;
  a redirect from https to http is refused.
- **Address.** The host is resolved, and *every* address it resolves to must be public
  (:func:`refusal`): loopback, private (RFC 1918, ``fc00::/7``), link-local (``169.254.0.0/16``
  with the cloud metadata address ``169.254.169.254``, ``fe80::/10``), shared (``100.64.0.0/10``),
  unspecified (``0.0.0.0``, ``::``), reserved, documentation and multicast ranges are refused,
  also when wrapped in IPv6 (IPv4-mapped ``::ffff:a.b.c.d``, 6to4, Teredo, NAT64). Only
  ``[web_fetch] allow_private`` (user config; ignored in an untrusted project) opens some.
- **The checked address is the one connected to.** The request goes to the address as an IP
  literal, with the host in the ``Host`` header and, for https, in SNI, so the certificate is
  verified against the host name. A DNS answer that changes between the check and the connection
  (DNS rebinding) cannot move the connection; each hop is resolved and checked again.
- **Redirects** are followed by hand: at most :data:`MAX_REDIRECTS` hops, on the same host only.
  A redirect to another host is checked (scheme, address) and handed back to the model, which
  must call web_fetch again, so the permission rules see the new domain.
- **Nothing of the user's is sent**: no proxy, no ``.netrc`` (``trust_env=False``), no cookies
  from outside the call; a URL that holds a secret Larik knows (:mod:`larik.llm.secrets`) is
  refused before any request.
"""

from __future__ import annotations

import asyncio
import fnmatch
import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from ...llm import secrets
from ...llm.net import is_loopback_host
from . import ToolError

__all__ = ["MAX_REDIRECTS", "AddressPolicy", "Response", "check_url", "fetch", "refusal"]

MAX_REDIRECTS = 5
USER_AGENT = "Larik web_fetch (a coding agent; https://pypi.org/project/larik/)"
IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _inner(ip: IP) -> list[IP]:
    """The IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo, NAT64)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    out: list[IP] = []
    if ip.ipv4_mapped is not None:
        out.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        out.append(ip.sixtofour)
    if ip.teredo is not None:
        out.extend(ip.teredo)
    if ip in _NAT64:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


def refusal(ip: IP) -> str:
    """Why web_fetch must not connect to ``ip`` ("" when it may: a public address)."""
    for inner in _inner(ip):
        why = refusal(inner)
        if why:
            return f"{why} (inside {ip})"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata lives there)"
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_private or not ip.is_global:
        return "a private or reserved address"
    return ""


@dataclass(frozen=True)
class AddressPolicy:
    """``[web_fetch] allow_private``: networks and host-name patterns let through anyway."""

    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    hosts: tuple[str, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AddressPolicy:
        nets, hosts = [], []
        for e in entries:
            try:
                nets.append(ipaddress.ip_network(e.strip("[]"), strict=False))
            except ValueError:
                hosts.append(e.lower().rstrip("."))
        return cls(tuple(nets), tuple(hosts))

    def check(self, host: str, addresses: list[IP]) -> None:
        """Raise ToolError unless every address is public or let through."""
        if any(fnmatch.fnmatchcase(host, h) for h in self.hosts):
            return
        for ip in addresses:
            why = refusal(ip)
            if why and not any(ip in n for n in self.networks if n.version == ip.version):
                raise ToolError(
                    f"{host} resolves to {ip}, {why}: web_fetch does not reach private "
                    "networks unless [web_fetch] allow_private in your config lists it"
                )


def check_url(url: str, came_from: str = "") -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a URL web_fetch may request, else ToolError (one line).
    ``came_from``: the URL that redirected here (https must not lead to http)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ToolError(f"not a valid URL: {url[:200]}") from None
    host = (parts.hostname or "").rstrip(".")
    if parts.scheme not in ("http", "https") or not host:
        raise ToolError(f"not an http(s) URL with a host: {url[:200]}")
    if "@" in parts.netloc:
        raise ToolError("a URL with a user name or password (user:pass@host) is not fetched")
    if parts.scheme == "http" and not is_loopback_host(host):
        raise ToolError(f"plain http is only for 127.0.0.1, ::1 and localhost; use https://{host}")
    if came_from.startswith("https:") and parts.scheme == "http":
        raise ToolError(f"{came_from[:200]} redirects to plain http ({url[:200]}): refused")
    if secrets.mask(url) != url:
        raise ToolError("the URL holds a secret Larik knows (an API key): not sent")
    return parts.scheme, host.lower(), port or (443 if parts.scheme == "https" else 80)


async def resolve(host: str, port: int) -> list[IP]:
    """Every address ``host`` resolves to (a test seam: tests replace it to play DNS)."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise ToolError(f"cannot resolve {host}: {e.strerror or e}") from None
    out: list[IP] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if ip not in out:
            out.append(ip)
    if not out:
        raise ToolError(f"cannot resolve {host}: no address")
    return out


@dataclass
class Response:
    url: str  # after same-host redirects
    status: int
    content_type: str  # lower case, no parameters
    charset: str
    body: bytes
    truncated: bool = False  # the body was longer than max_bytes
    redirect: str = ""  # a redirect to another host, for the model to call again


Accept = Callable[[str], None]  # raises ToolError for a content type not to be downloaded


async def fetch(
    url: str, policy: AddressPolicy, max_bytes: int, timeout: float, accept: Accept
) -> Response:
    """GET ``url`` by the rules above. ``accept(content_type)``: raise ToolError to refuse
    a type before its body is downloaded."""
    try:
        async with asyncio.timeout(timeout):
            return await _fetch(url, policy, max_bytes, timeout, accept)
    except TimeoutError:
        raise ToolError(f"{url[:200]}: no complete answer within {timeout:g} s") from None


async def _fetch(
    url: str, policy: AddressPolicy, max_bytes: int, timeout: float, accept: Accept
) -> Response:
    import httpx2

    headers = {"User-Agent": USER_AGENT, "Accept": "text/html, text/*;q=0.9, */*;q=0.5"}
    came_from = ""
    async with httpx2.AsyncClient(
        trust_env=False, follow_redirects=False, timeout=timeout, headers=headers
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            scheme, host, port = check_url(url, came_from)
            addresses = await resolve(host, port)
            policy.check(host, addresses)
            response = await _send(client, url, scheme, host, addresses)
            try:
                if response.is_redirect and "location" in response.headers:
                    came_from, url = url, urljoin(url, response.headers["location"])
                    _, next_host, next_port = check_url(url, came_from)
                    if next_host == host:
                        continue
                    policy.check(next_host, await resolve(next_host, next_port))
                    return Response(came_from, response.status_code, "", "", b"", redirect=url)
                return await _read(url, response, max_bytes, accept)
            finally:
                await response.aclose()
    raise ToolError(f"more than {MAX_REDIRECTS} redirects; the last went to {url[:200]}")


async def _send(client: Any, url: str, scheme: str, host: str, addresses: list[IP]) -> Any:
    """The response from the first of the checked ``addresses`` that takes the connection: the
    URL's host replaced by the address, the host sent as ``Host`` and, for https, as SNI (the
    certificate is checked against it)."""
    import httpx2

    extensions = {"sni_hostname": host} if scheme == "https" else {}
    netloc = urlsplit(url).netloc.rpartition("@")[2]
    for i, ip in enumerate(addresses):
        target = httpx2.URL(url).copy_with(host=str(ip))
        request = client.build_request(
            "GET", target, headers={"Host": netloc}, extensions=extensions
        )
        try:
            return await client.send(request, stream=True)
        except httpx2.ConnectError as e:
            if i + 1 < len(addresses):
                continue  # e.g. an IPv6 address on a machine without IPv6: the next one
            raise ToolError(f"cannot connect to {host} ({ip}): {e}") from None
        except httpx2.HTTPError as e:
            raise ToolError(f"{url[:200]}: {type(e).__name__}: {e}") from None
    raise ToolError(f"cannot connect to {host}")


async def _read(url: str, response: Any, max_bytes: int, accept: Accept) -> Response:
    ctype = response.headers.get("content-type", "")
    kind = ctype.split(";")[0].strip().lower()
    if response.status_code >= 400:
        raise ToolError(
            f"{url[:200]} answered HTTP {response.status_code} {response.reason_phrase}"
        )
    accept(kind)
    body = bytearray()
    truncated = False
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > max_bytes:
            del body[max_bytes:]
            truncated = True
            break
    charset = ""
    for param in ctype.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'")
    return Response(url, response.status_code, kind, charset, bytes(body), truncated)
