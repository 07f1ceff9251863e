"""Kubernetes names from fedopt ids: DNS-1123 labels, label values, stable and collision-free."""

from __future__ import annotations

import hashlib
import re

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
LABEL_KEY_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")


def _digest(text: str, n: int = 6) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def dns_label(text: str, max_len: int = 63, prefix: str = "") -> str:
    """A DNS-1123 label (lower case, digits, '-'; <= max_len) that reads like ``text``.

    Lossy renderings that had to be cut get a short hash of ``text`` so that names stay distinct.
    """
    body = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
    name = f"{prefix}{body}".strip("-")
    if len(name) > max_len:
        tag = _digest(text)
        name = name[: max_len - len(tag) - 1].rstrip("-") + "-" + tag
    return name


def label_value(text: str) -> str:
    """A label value (<= 63 characters of [A-Za-z0-9-_.], alphanumeric at both ends)."""
    if len(text) <= 63 and LABEL_VALUE.match(text):
        return text
    body = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-_.")
    if body != text or len(body) > 63:
        tag = _digest(text)
        body = body[: 63 - len(tag) - 1].strip("-_.") + "-" + tag if body else tag
    return body


class Namer:
    """Gives each (kind, scope, id) a DNS label; two ids never get the same name in one scope."""

    def __init__(self, prefix: str = "fedopt-"):
        self.prefix = prefix
        self.names: dict[tuple[str, str, str], str] = {}
        self.taken: dict[tuple[str, str, str], str] = {}

    def __call__(self, kind: str, ident: str, scope: str = "", max_len: int = 63) -> str:
        key = (kind, scope, ident)
        if key in self.names:
            return self.names[key]
        name = dns_label(ident, max_len, self.prefix)
        if (kind, scope, name) in self.taken and self.taken[(kind, scope, name)] != ident:
            tag = _digest(ident)
            name = name[: max_len - len(tag) - 1].rstrip("-") + "-" + tag
        self.taken[(kind, scope, name)] = ident
        self.names[key] = name
        return name


def label_errors(labels: dict, where: str) -> list[str]:
    """Problems with a labels map (keys: [prefix/]name; values: label values)."""
    out = []
    for k, v in (labels or {}).items():
        prefix, _, name = k.rpartition("/")
        if prefix and (len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix)):
            out.append(f"{where}: label key {k!r} has an invalid prefix")
        if not name or len(name) > 63 or not LABEL_KEY_NAME.match(name):
            out.append(f"{where}: label key {k!r} is not a valid name")
        if not isinstance(v, str) or len(v) > 63 or not LABEL_VALUE.match(v):
            out.append(f"{where}: label value {v!r} of {k!r} is not valid")
    return out
