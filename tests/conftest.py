"""Shared fixtures: the Warp devices the runtime tests run on, and a closed manager around every test."""

import pytest
import warp as wp

from isaaclab_contrib.physics import NewtonManager


def _devices() -> list:
    devices = [pytest.param("cpu", id="cpu")]
    if wp.get_cuda_device_count() > 0:
        devices.append(pytest.param("cuda:0", id="cuda"))
    return devices


@pytest.fixture(scope="module", params=_devices())
def device(request) -> str:
    """Warp device of a runtime test: ``"cpu"`` always, ``"cuda:0"`` too when a CUDA device is present."""
    return request.param


@pytest.fixture(autouse=True)
def _closed_manager():
    """Every test starts and ends without an active simulation (the manager is a class-level singleton)."""
    NewtonManager.close()
    yield
    NewtonManager.close()
