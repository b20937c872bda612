"""Training configs: one loader and one saver for both backends.

A config is a flat YAML mapping of option names to values (``configs/*.yaml``,
a run folder's ``config.yaml``), or nested as the config is built (a ``shared:``
mapping and one named as the backend, ``sb3:`` or ``rllib:``); its ``backend``
key (``sb3`` when absent) picks the backend. The loader files each key into its section
(``training/config/options.py``: the shared options, and the backend's own),
checks each value's type and then the values (``training/config/checks.py``),
and gives the backend's config: :class:`TrainConfig` (SB3) or
:class:`RLlibConfig`. An unknown key, an option of the other backend, or a
wrong type or value is a :class:`ConfigError` naming the key and what is
allowed. The saver writes every option back flat, section by section, so a
resume reads it again.

The configs in ``configs/`` ship with the package (``sixtysix_training.configs``)
and are found by name: ``sixtysix train --config quickstart`` (see
:func:`resolve_config`); a path to any YAML file works too. YAML is read with
YAML 1.2's numbers (``training/config/yaml_reader.py``), so ``3e-4`` is a number.
"""

from __future__ import annotations

import difflib
import importlib.resources
import os
from pathlib import Path
from typing import Any

import yaml

from sixtysix_env.util.bounded import read_bounded
from sixtysix_env.util.files import write_text

from .checks import check_config, coerce_value
from .options import (
    BACKENDS,
    FIXED_ON_RESUME,
    LEAGUE_BASELINES,
    SB3_ONLY_ON_RLLIB,
    SECTION_TITLES,
    SECTIONS,
    SHARED_FIELDS,
    ConfigError,
    RLlibConfig,
    RLlibOptions,
    RunConfig,
    SB3Options,
    SharedOptions,
    TrainConfig,
    describe_options,
    field_docs,
    flat_options,
    option_types,
    options_of,
    section_fields,
    show,
    type_name,
)
from .yaml_reader import MAX_CONFIG_BYTES, read_yaml, read_yaml_file

__all__ = [
    "BACKENDS", "FIXED_ON_RESUME", "LEAGUE_BASELINES", "ConfigError", "RLlibConfig",
    "RLlibOptions", "RunConfig", "SB3Options", "SharedOptions", "TrainConfig", "config_backend",
    "config_from_dict", "config_to_dict", "describe_options", "field_docs", "flat_options",
    "flatten_values", "load_config", "parse_override", "read_config_values", "read_yaml",
    "read_yaml_file", "resolve_config", "save_config", "shipped_configs", "type_name",
]  # fmt: skip


def _refused(key: Any, backend: str) -> str:
    """Why ``key`` is no option of ``backend``'s config, and what is allowed instead."""
    if backend == "rllib" and key in SB3_ONLY_ON_RLLIB:
        return f"option {key!r} is not supported by the rllib backend ({SB3_ONLY_ON_RLLIB[key]})"
    for other, section in SECTIONS.items():
        if other != backend and key in section_fields(section):
            return (
                f"option {key!r} is an option of the {other} backend, not of the {backend} "
                f"backend (set backend: {other}, or leave it out)"
            )
    names = options_of(backend)
    allowed = ("backend", *names) if backend == "rllib" else names
    close = difflib.get_close_matches(str(key)[:100], allowed, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown option {show(key)}{hint}; allowed options: {', '.join(allowed)}"


def _backend_of(values: dict[str, Any], backend: str, source: str) -> None:
    """Refuse a ``backend`` key that names another backend than the one loading."""
    given = values.pop("backend", backend)
    if given == backend:
        return
    if backend == "sb3":
        raise ConfigError(
            f"{source}: option 'backend' got {show(given)}; this loader reads the sb3 backend's "
            f"configs (backends: {', '.join(BACKENDS)}; for rllib use --backend rllib)"
        )
    raise ConfigError(f"{source}: option 'backend' got {show(given)}; this loader reads 'rllib'")


def flatten_values(values: dict[str, Any], backend: str, source: str) -> dict[str, Any]:
    """The options of a config written flat, or nested as the config is built (a ``shared:``
    mapping and one named as the backend, ``sb3:`` or ``rllib:``), or both ways at once:
    flat, each nested option checked to belong to its section."""
    out = {k: v for k, v in values.items() if k not in ("shared", *SECTIONS)}
    for key in ("shared", *SECTIONS):
        if key not in values:
            continue
        nested = values[key]
        if key != "shared" and key != backend:
            raise ConfigError(
                f"{source}: section {key!r} holds the {key} backend's options, not the "
                f"{backend} backend's (set backend: {key}, or leave it out)"
            )
        if not isinstance(nested, dict):
            raise ConfigError(
                f"{source}: section {key!r} must be a mapping of option names to values, got "
                f"{type(nested).__name__}"
            )
        names = SHARED_FIELDS if key == "shared" else section_fields(SECTIONS[key])
        for name, value in nested.items():
            if name not in names:
                raise ConfigError(
                    f"{source}: section {key!r} has no option {show(name)}; its options: "
                    f"{', '.join(names)}"
                )
            if name in out:
                raise ConfigError(f"{source}: option {name!r} is given twice (flat and in {key!r})")
            out[name] = value
    return out


def _sections(values: dict[str, Any], backend: str, source: str) -> dict[str, dict[str, Any]]:
    """Each key filed into its section (``shared`` or the backend's), its type checked."""
    types_ = option_types(backend)
    own = section_fields(SECTIONS[backend])
    out: dict[str, dict[str, Any]] = {"shared": {}, backend: {}}
    for key, value in values.items():
        if key not in types_:
            raise ConfigError(f"{source}: {_refused(key, backend)}")
        ok, v = coerce_value(types_[key], value)
        if not ok:
            raise ConfigError(
                f"{source}: option {key!r} must be {type_name(types_[key])}, got {show(value)} "
                f"({type(value).__name__})"
            )
        out[backend if key in own else "shared"][key] = v
    return out


def config_from_dict(
    values: dict[str, Any], source: str = "config", backend: str = "sb3"
) -> TrainConfig | Any:
    """A checked config of ``backend`` from a mapping of option names to values:
    :class:`TrainConfig` for sb3, :class:`RLlibConfig` for rllib."""
    if not isinstance(values, dict):
        raise ConfigError(
            f"{source}: expected a mapping of option names to values, got {type(values).__name__}"
        )
    values = dict(values)
    _backend_of(values, backend, source)
    parts = _sections(flatten_values(values, backend, source), backend, source)
    if backend == "sb3":
        cfg: Any = TrainConfig(SharedOptions(**parts["shared"]), SB3Options(**parts["sb3"]))
    else:
        cfg = RLlibConfig(SharedOptions(**parts["shared"]), RLlibOptions(**parts["rllib"]))
    try:
        check_config(cfg)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    return cfg


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` (value in YAML syntax) -> (key, value)."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise ConfigError(f"override {text!r} must look like key=value")
    try:
        value = read_yaml(raw) if raw.strip() else None
    except yaml.YAMLError as e:
        raise ConfigError(f"override {show(text)}: the value is not valid YAML ({e})") from None
    except ConfigError as e:
        raise ConfigError(f"override {show(text)}: {e}") from None
    return key.strip(), value


#: The package the shipped configs are installed as (see ``pyproject.toml``).
CONFIGS_PACKAGE = "sixtysix_training.configs"


def shipped_configs() -> dict[str, Path]:
    """The shipped configs by name (``quickstart`` -> its ``quickstart.yaml``)."""
    try:
        root = Path(str(importlib.resources.files(CONFIGS_PACKAGE)))
    except ModuleNotFoundError:
        # Imported from a source checkout as a plain folder: the repository's configs/ sits
        # beside training/ (training/config/ is two folders below it).
        root = Path(__file__).resolve().parents[2] / "configs"
    if not root.is_dir():
        return {}
    return {p.stem: p for p in sorted(root.glob("*.yaml"))}


def resolve_config(spec: str) -> str:
    """A config file's path from a path or the name of a shipped config.

    An existing file wins (anything there but a folder: the reader refuses a FIFO or a
    device, naming it); otherwise a bare name (``quickstart``, or
    ``quickstart.yaml``) names a shipped config. Anything else is a
    :class:`ConfigError` listing the shipped names.
    """
    if os.path.lexists(spec) and not os.path.isdir(spec):
        return spec
    shipped = shipped_configs()
    base = os.path.basename(spec)
    stem = base.removesuffix(".yaml")
    # configs/NAME.yaml from outside a clone means the shipped one too.
    if stem in shipped and os.path.dirname(spec) in ("", "configs"):
        return str(shipped[stem])
    names = ", ".join(shipped) or "(none in this installation)"
    if os.path.dirname(spec) not in ("", "configs"):
        raise ConfigError(f"config file {spec!r} does not exist (shipped configs: {names})")
    raise ConfigError(
        f"config {spec!r} is neither a file nor a shipped config; shipped configs: {names}"
    )


def read_config_values(
    path: str | None = None, overrides: list[str] | None = None
) -> tuple[dict[str, Any], str]:
    """(option values, where they came from) of a YAML config (a file or a shipped config's
    name; or none) with ``key=value`` overrides on top; both training backends read so."""
    values: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        path = resolve_config(path)
        source = path
        try:
            text = read_bounded(path, f"config {path!r}", MAX_CONFIG_BYTES,
                                "a config is read up to", ConfigError).decode("utf-8")
        except OSError as e:
            raise ConfigError(f"cannot read config {path!r}: {e}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: not UTF-8 text") from None
        try:
            loaded = read_yaml(text)
        except yaml.YAMLError as e:
            raise ConfigError(f"{path}: not valid YAML ({e})") from None
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: expected a mapping of option names to values")
        values.update(loaded)
    for text in overrides or []:
        k, v = parse_override(text)
        values[k] = v
        source = f"{source} with overrides" if "overrides" not in source else source
    return values, source


def config_backend(path: str) -> str:
    """The backend a config file, a shipped config's name or a run folder asks for.

    Its ``backend`` key as YAML reads it (``backend: rllib`` and
    ``backend: "rllib"`` alike); ``sb3`` when there is none, or when the file
    cannot be read (the loader then says why).
    """
    if os.path.isdir(path):
        path = os.path.join(path, "config.yaml")
    try:
        values, _ = read_config_values(path)
    except ConfigError:
        return "sb3"
    backend = values.get("backend", "sb3")
    return backend if backend in BACKENDS else "sb3"


def load_config(
    path: str | None = None, overrides: list[str] | None = None, backend: str = "sb3"
) -> TrainConfig | Any:
    """Read a YAML config (a file or a shipped config's name; or the defaults), then overrides,
    as ``backend``'s config."""
    values, source = read_config_values(path, overrides)
    return config_from_dict(values, source, backend)


def _sections_of(cfg: RunConfig) -> list[tuple[str, Any, tuple[str, ...]]]:
    """(section name, the object holding its values, its option names) of a config."""
    return [
        ("shared", cfg.shared, SHARED_FIELDS),
        (cfg.backend, cfg.section, section_fields(SECTIONS[cfg.backend])),
    ]


def backend_of(cfg: RunConfig) -> str:
    return cfg.backend


def config_to_dict(cfg: RunConfig) -> dict[str, Any]:
    """Every option of a config, flat (RLlib's with ``backend: rllib`` first)."""
    out: dict[str, Any] = {"backend": "rllib"} if cfg.backend == "rllib" else {}
    out.update(flat_options(cfg))
    return out


def save_config(cfg: RunConfig, path: str) -> None:
    """The resolved config, every option with its meaning, flat YAML section by section
    (what :func:`load_config` reads back)."""
    docs = field_docs()
    backend = backend_of(cfg)
    lines = [
        "# Resolved training configuration (every option; see training/config/options.py).",
        f"backend: {backend}",
    ]
    for title, holder, names in _sections_of(cfg):
        lines.append(f"# -- {SECTION_TITLES[title]} --")
        for k in names:
            lines.append(f"# {docs.get(k, '')}")
            text = yaml.safe_dump(
                getattr(holder, k), default_flow_style=True, width=10**6, sort_keys=False
            )
            # A plain scalar comes with a document end marker.
            lines.append(f"{k}: {text.strip().removesuffix(chr(10) + '...').strip()}")
    write_text(path, "\n".join(lines) + "\n")
