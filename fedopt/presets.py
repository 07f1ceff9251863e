"""Solver presets: named TOML files in ``solvers/`` (time limit, gap, threads, budgets)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from fedopt.errors import InputError

PRESET_DIR = Path(__file__).resolve().parent.parent / "solvers"


@dataclass(frozen=True)
class Preset:
    name: str = "default"
    time_limit: float = 60.0
    mip_gap: float = 1e-6
    threads: int = 1
    split_budget: int = 400_000


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def load_preset(name: str) -> Preset:
    """The preset ``name`` (a file stem in solvers/, or a path to a TOML file)."""
    path = Path(name) if name.endswith(".toml") else PRESET_DIR / f"{name}.toml"
    if not path.exists():
        if name == "default":
            return Preset()
        raise InputError("--preset", f"no preset {name!r}; known: {', '.join(preset_names()) or 'none'}")
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError("--preset", f"cannot read {path}: {exc}") from None
    known = {f.name for f in fields(Preset)}
    unknown = set(data) - known
    if unknown:
        raise InputError(f"{path.name}.{sorted(unknown)[0]}", "unknown preset key")
    return Preset(**({"name": path.stem} | data))
