"""anomaly_off: keep autograd's anomaly detection off (it records a stack for every graph node)."""

from __future__ import annotations

from .base import Fix, Injector

__all__ = ["FIX"]


class _AnomalyOff(Injector):
    fix_id = "anomaly_off"

    def install(self) -> None:
        import torch

        original = torch.set_anomaly_enabled
        injector = self

        # detect_anomaly() and set_detect_anomaly() both call torch.set_anomaly_enabled.
        def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
            if enabled:
                injector.applier.applied(injector.fix_id, "kept anomaly detection off")
            return original(False, check_nan)

        self.applier.patch(torch, "set_anomaly_enabled", set_anomaly_enabled)
        self._off = lambda: original(False)

    def at_boundary(self) -> None:
        import torch

        if torch.is_anomaly_enabled():
            self._off()


FIX = Fix(id="anomaly_off", what="anomaly detection off", injector=_AnomalyOff)
