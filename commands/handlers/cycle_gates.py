"""The cycle gates moved to commands/domain/cycle_gates.py; this name stays importable until its callers move."""

from leafwise.commands.domain.cycle_gates import (  # noqa: F401
    FOR_EACH,
    check_complete,
    check_paths,
    off_limits_for,
    owning_cycle,
    owns,
    running_cycles,
    scope_ids,
)
