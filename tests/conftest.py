"""Shared fixtures: the Warp devices the runtime tests run on, and a closed manager around every test.

A test file whose tests can share one simulation (an env built once per module) names the fixture that
holds it ``shared_*``: the tests that request it keep that simulation open between them; every other test
starts and ends with the manager closed. List a file's sharing tests together, before its other tests.
"""

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


def shares_a_simulation(request) -> bool:
    """Whether the test requests a ``shared_*`` fixture (a simulation kept open across a module's tests)."""
    return any(name.startswith("shared_") for name in request.fixturenames)


@pytest.fixture(autouse=True)
def _closed_manager(request):
    """Every test starts and ends without an active simulation (the manager is a class-level singleton), but for
    the tests that share one (see the module documentation)."""
    shared = shares_a_simulation(request)
    if not shared:
        NewtonManager.close()
    yield
    if not shared:
        NewtonManager.close()
