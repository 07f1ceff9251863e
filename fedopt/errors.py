"""Errors users see, and the exit statuses the command line maps them to."""

from __future__ import annotations

EXIT_OK = 0
EXIT_VIOLATIONS = 1  # `check` found rule violations
EXIT_BAD_INPUT = 2  # invalid instance, plan or arguments; nothing written
EXIT_INFEASIBLE = 3  # pinned jobs alone break a limit; no plan exists
EXIT_TOO_LARGE = 5  # the model would not fit in memory; refused before building it
EXIT_INTERRUPTED = 130  # SIGINT/SIGTERM: best plan so far written


class FedoptError(Exception):
    """Base class of the errors fedopt reports without a traceback."""

    exit_status = 1


class InputError(FedoptError):
    """Bad input: names the JSON path (like ``jobs[3].cards.min``) and the reason."""

    exit_status = EXIT_BAD_INPUT

    def __init__(self, path: str, reason: str, source: str | None = None):
        self.path = path
        self.reason = reason
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{path or '(root)'}: {reason}")


class InputErrors(InputError):
    """Several input errors at once; the message lists them all."""

    def __init__(self, errors: list[InputError], source: str | None = None):
        self.errors = errors
        first = errors[0]
        super().__init__(first.path, first.reason, source)
        where = f"{source}: " if source else ""
        lines = [f"{where}{e.path or '(root)'}: {e.reason}" for e in errors[:20]]
        if len(errors) > 20:
            lines.append(f"... and {len(errors) - 20} more")
        self.args = ("\n".join(lines),)


class InfeasibleError(FedoptError):
    """The pinned (non-preemptible running) jobs alone break a limit."""

    exit_status = EXIT_INFEASIBLE

    def __init__(self, conflicts: list[str]):
        self.conflicts = conflicts
        super().__init__("no feasible plan: pinned jobs alone break limits:\n  " + "\n  ".join(conflicts))


class TooLargeError(FedoptError):
    """The model would not fit in memory: refused before it is built."""

    exit_status = EXIT_TOO_LARGE
