"""The errors of experiments, apart from the contract so that settings can name them cheaply."""

from __future__ import annotations

from studykit.core.errors import StudykitError

__all__ = [
    "Cancelled",
    "DeviceUnavailable",
    "ExperimentError",
    "ExperimentFailed",
    "ParamError",
    "TorchMissing",
    "UnknownExperiment",
]


class ExperimentError(StudykitError):
    """Base of every experiment error a user sees."""


class ParamError(ExperimentError):
    """A parameter value (or name) that the experiment does not accept."""


class UnknownExperiment(ExperimentError):
    """A name that is not in the registry."""


class DeviceUnavailable(ExperimentError):
    """The requested device cannot be used on this machine."""


class TorchMissing(ExperimentError):
    """PyTorch is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "PyTorch is not installed, and experiments need it: pip install 'studykit[torch]'"
        )


class ExperimentFailed(ExperimentError):
    """A run that raised something other than a cancel."""


class Cancelled(ExperimentError):
    """The run was cancelled through its cancel check."""
