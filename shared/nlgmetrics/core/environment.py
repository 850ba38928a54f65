"""The environment variables nlgmetrics reads, each read through one checked accessor: an
invalid value is one ``ValueError`` naming the variable and what it takes (it never falls back
to a default silently, nor fails later in an error that does not name it)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def env_flag(name: str, default: bool = False) -> bool:
    """``name`` as true or false (unset or empty: ``default``).

    >>> os.environ["NLGMETRICS_DEMO_FLAG"] = "maybe"
    >>> env_flag("NLGMETRICS_DEMO_FLAG")
    Traceback (most recent call last):
    ...
    ValueError: environment variable NLGMETRICS_DEMO_FLAG='maybe' must be one of 1, true, yes, on or 0, false, no, off
    >>> del os.environ["NLGMETRICS_DEMO_FLAG"]
    """
    raw = os.environ.get(name)
    value = (raw or "").strip().lower()
    if not value:
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"environment variable {name}={raw!r} must be one of {', '.join(_TRUE)} or "
                     f"{', '.join(_FALSE[:-1])}")


def env_int(name: str, default: int, low: int = 0) -> int:
    """``name`` as an integer >= ``low`` (unset or empty: ``default``)."""
    raw = os.environ.get(name, "")
    if not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        value = None
    if value is None or value < low:
        raise ValueError(f"environment variable {name}={raw[:60]!r} must be an integer >= {low}")
    return value


def env_choice(name: str, choices: Sequence[str], default: str) -> str:
    """``name`` as one of ``choices`` (unset or empty: ``default``)."""
    raw = os.environ.get(name, "")
    value = raw.strip().lower()
    if not value:
        return default
    if value not in choices:
        raise ValueError(f"environment variable {name}={raw[:60]!r} must be one of {', '.join(choices)}")
    return value


def env_directory(name: str, default: Path) -> Path:
    """``name`` as a directory, created when missing (unset or empty: ``default``); a path
    that exists and is not a directory, or one that cannot be created, names the variable."""
    raw = os.environ.get(name, "")
    root = Path(raw).expanduser() if raw.strip() else default
    where = f"environment variable {name}={raw[:200]!r}" if raw.strip() else f"{root} (set {name} to change it)"
    if root.exists() and not root.is_dir():
        raise ValueError(f"{where}: exists and is not a directory")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"{where}: cannot create the directory ({err.strerror or type(err).__name__})") from None
    return root


def env_text(name: str) -> Optional[str]:
    """``name``'s value, or None when unset or blank."""
    raw = os.environ.get(name, "")
    return raw if raw.strip() else None
