"""The public surface of ``isaaclab_contrib.coupling`` against the API reference in the shared spec folder.

The spec file lists every method of ``NewtonCouplerManager`` with its signature, and each class with its
bases. This test reads that text (it is not copied into the tests) and checks that each method exists, is
a classmethod or staticmethod as listed, and accepts the listed parameters (same names, kinds, and a
default where the spec has one; extra parameters of ours must have defaults), and that the class chain
and the config classes' fields match.
"""

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

import isaaclab_contrib.coupling as coupling
from isaaclab_contrib.coupling import NewtonCouplerManager

SPEC_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "spec"
SPEC = next(iter(sorted(SPEC_DIR.glob("004_*.txt"))), None) if SPEC_DIR.is_dir() else None
pytestmark = pytest.mark.skipif(SPEC is None, reason="the shared spec folder is not beside the repository")


def spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def split_params(text: str) -> list[str]:
    """Split a parameter list at top-level commas (brackets nest)."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def spec_methods() -> dict[str, tuple[str, list[tuple[str, str, bool]]]]:
    """name -> (kind, [(param name, kind, has default)]) from the ``classmethod``/``static`` lines."""
    text = spec_text()
    section = text[text.index("class isaaclab_contrib.coupling.coupler.NewtonCouplerManager") :]
    methods = {}
    for match in re.finditer(r"^(classmethod|static) (\w+)\((.*?)\)(?: →.*)?$", section, re.M):
        kind, name, params = match.groups()
        parsed, keyword_only = [], False
        for part in split_params(params):
            if part == "*":
                keyword_only = True
                continue
            if part.startswith("**"):
                parsed.append((part[2:].split(":")[0], "VAR_KEYWORD", False))
                continue
            if part.startswith("*"):
                parsed.append((part[1:].split(":")[0], "VAR_POSITIONAL", False))
                keyword_only = True
                continue
            pname = part.split(":")[0].split("=")[0].strip()
            parsed.append((pname, "KEYWORD_ONLY" if keyword_only else "POSITIONAL_OR_KEYWORD", "=" in part))
        methods[name] = (kind, parsed)
    return methods


def spec_method_table() -> list[str]:
    """Names in the 'Methods:' summary table of the manager."""
    text = spec_text()
    section = text[text.index("class isaaclab_contrib.coupling.coupler.NewtonCouplerManager") :]
    table = section[section.index("Methods:") : section.index("classmethod activate_newton_actuator_path")]
    return re.findall(r"^(\w+)\(", table, re.M)


def test_the_spec_lists_the_manager_methods():
    methods = spec_methods()
    assert len(methods) >= 55 and "step" in methods and "activate_newton_actuator_path" in methods
    assert set(spec_method_table()) == set(methods)


@pytest.mark.parametrize("name", sorted(spec_methods()) if SPEC else [])
def test_every_spec_method_exists_with_a_compatible_signature(name):
    kind, params = spec_methods()[name]
    assert hasattr(NewtonCouplerManager, name), f"NewtonCouplerManager.{name} is missing"
    raw = inspect.getattr_static(NewtonCouplerManager, name)
    expected = classmethod if kind == "classmethod" else staticmethod
    assert isinstance(raw, expected), f"{name} should be a {kind}"
    ours = inspect.signature(getattr(NewtonCouplerManager, name)).parameters
    for pname, pkind, has_default in params:
        if pkind == "VAR_POSITIONAL":
            assert any(p.kind is p.VAR_POSITIONAL for p in ours.values()), f"{name} takes no *{pname}"
            continue
        if pkind == "VAR_KEYWORD":
            assert any(p.kind is p.VAR_KEYWORD for p in ours.values()), f"{name} takes no **{pname}"
            continue
        assert pname in ours, f"{name} lacks parameter {pname!r}"
        assert ours[pname].kind.name == pkind, f"{name}({pname}) is {ours[pname].kind.name}, spec says {pkind}"
        if has_default:
            assert ours[pname].default is not inspect.Parameter.empty, f"{name}({pname}) needs a default"
    listed = {p[0] for p in params}
    for pname, parameter in ours.items():
        if pname in listed or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        assert parameter.default is not inspect.Parameter.empty, f"{name}: extra parameter {pname!r} needs a default"


def test_class_chain_follows_the_spec():
    text = spec_text()
    for match in re.finditer(r"^class isaaclab_contrib\.coupling\.(\w+)\.(\w+)\n\nBases: (\w+)", text, re.M):
        _, class_name, base = match.groups()
        klass = getattr(coupling, class_name)
        names = [b.__name__ for b in klass.__mro__[1:]]
        assert names[0] == base or (base == "object" and names == ["object"]), (class_name, names)
    assert [c.__name__ for c in NewtonCouplerManager.__mro__[:3]] == [
        "NewtonCouplerManager",
        "NewtonVBDManager",
        "NewtonManager",
    ]


@pytest.mark.parametrize(
    "class_name", ["CouplerEntryCfg", "CouplerCfg", "CouplerProxyMappingCfg", "CouplerProxyCfg", "CouplerAdmmCfg"]
)
def test_config_fields_follow_the_spec(class_name):
    text = spec_text()
    start = text.index(f"class isaaclab_contrib.coupling.coupler_cfg.{class_name}\n")
    attributes = text[text.index("Attributes:", start) :]
    attributes = attributes[: attributes.index("\n\n", attributes.index("\n\n") + 2)]
    listed = re.findall(r"^(\w+)\t", attributes, re.M)
    assert listed, class_name
    fields = {f.name for f in dataclasses.fields(getattr(coupling, class_name))}
    missing = [name for name in listed if name not in fields]
    assert not missing, f"{class_name} lacks spec fields {missing}"
