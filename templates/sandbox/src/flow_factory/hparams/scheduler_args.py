"""Scheduler argument group (``scheduler:`` in YAML)."""

from __future__ import annotations

from dataclasses import dataclass

from .abc import ArgABC

SDE_DYNAMICS = ("Flow-SDE", "Dance-SDE", "CPS")
DYNAMICS_TYPES = (*SDE_DYNAMICS, "ODE")


@dataclass
class SchedulerArguments(ArgABC):
    """Sampling dynamics; the toy model uses Euler (ODE) or Euler-Maruyama (any SDE)."""

    dynamics_type: str = "ODE"
    noise_level: float = 0.7
    num_sde_steps: int | None = None
    sde_steps: list[int] | None = None
    seed: int = 42

    def __post_init__(self) -> None:
        if self.dynamics_type not in DYNAMICS_TYPES:
            raise ValueError(
                f"scheduler.dynamics_type must be one of {DYNAMICS_TYPES}, "
                f"got {self.dynamics_type!r}"
            )

    @property
    def component_dynamics(self) -> dict[str, str]:
        """Dynamics per trajectory component (the toy has one component, ``latent``)."""
        return {"latent": self.dynamics_type}


__all__ = ["DYNAMICS_TYPES", "SDE_DYNAMICS", "SchedulerArguments"]
