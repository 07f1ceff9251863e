"""Reading JSON documents into the pydantic models, with errors that name the JSON path."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from fedopt.errors import InputError, InputErrors

M = TypeVar("M", bound=BaseModel)

# Union branch tags pydantic puts into error locations; a user never wrote them.
_BRANCH_TAGS = {"int", "float", "str", "bool", "ElasticCards", "constrained-int", "none"}


def json_path(loc: tuple) -> str:
    """Render a pydantic location as ``jobs[3].cards.min``."""
    out = ""
    for seg in loc:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif seg in _BRANCH_TAGS or str(seg).startswith(("function-", "tagged-union")):
            continue
        else:
            out += ("." if out else "") + str(seg)
    return out


def _reason(err: dict) -> str:
    kind = err.get("type", "")
    if kind == "missing":
        return "required field is missing"
    if kind == "json_invalid":
        return f"invalid JSON: {err.get('ctx', {}).get('error', err.get('msg'))}"
    msg = str(err.get("msg", "invalid value"))
    value = err.get("input")
    if kind not in ("model_type", "dict_type", "list_type") and not isinstance(value, dict | list):
        msg += f" (got {value!r})"[:120]
    return msg


def errors_from_validation(exc: ValidationError, source: str | None) -> InputErrors:
    """Turn a pydantic error into our path-naming errors, one per JSON path."""
    seen: dict[str, InputError] = {}
    union_paths: dict[str, list[dict]] = {}
    for err in exc.errors(include_url=False):
        path = json_path(tuple(err["loc"]))
        union_paths.setdefault(path, []).append(err)
    for path, errs in union_paths.items():
        # For a union (e.g. cards: int | {min,max,step}) show the first branch's reason.
        seen[path] = InputError(path, _reason(errs[0]), source)
    return InputErrors(list(seen.values()), source)


def read_bytes(path: str | os.PathLike, max_bytes: int = 2 << 30) -> bytes:
    """Read a file, refusing unreadable or oversized ones with an InputError. ``-`` reads standard
    input (``kubectl ... | fedopt import-k8s ... | fedopt solve -``)."""
    if str(path) == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise InputError("", f"standard input is more than the {max_bytes} bytes allowed", "-")
        return data
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise InputError("", f"file is {size} bytes, more than the {max_bytes} allowed", str(p))
        data = p.read_bytes()
    except OSError as exc:
        raise InputError("", f"cannot read file: {exc.strerror or exc}", str(p)) from None
    return data


def parse_document(data: bytes | str, model: type[M], source: str | None = None) -> M:
    """Parse JSON text into ``model``; every failure becomes an InputError naming the path."""
    if isinstance(data, bytes):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError("", f"not UTF-8 text (byte {exc.start})", source) from None
    if not data.strip():
        raise InputError("", "empty document", source)
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        raise errors_from_validation(exc, source) from None
    except (ValueError, RecursionError) as exc:
        raise InputError("", f"invalid JSON: {exc}", source) from None
