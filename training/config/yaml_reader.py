"""The bounded YAML reader of training configs: safe, with YAML 1.2's numbers.

YAML is read with YAML 1.2's numbers, so ``3e-4`` is a number (PyYAML alone
reads YAML 1.1, where it is a string). A config is a few dozen lines: past
:data:`MAX_CONFIG_BYTES`, :data:`MAX_YAML_DEPTH` levels or
:data:`MAX_YAML_VALUES` values (aliases expanded) reading stops with a
:class:`~.options.ConfigError`.
"""

from __future__ import annotations

import os
import re
from typing import Any

import yaml

from sixtysix_env.util.bounded import read_bounded

from .options import ConfigError


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, with YAML 1.2's floats: ``3e-4`` and ``1E5`` are numbers."""


# YAML 1.1 (PyYAML's) needs a dot in a float; YAML 1.2 does not. Same as
# PyYAML's float pattern, with the dot made optional before an exponent.
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.VERBOSE,
    ),
    list("-+0123456789."),
)


#: Limits of a config's YAML: a training config is a few dozen lines.
MAX_CONFIG_BYTES = 1 << 20
MAX_YAML_DEPTH = 32
MAX_YAML_VALUES = 100_000  # counting each alias as the copy it stands for


def _compose_bounded(loader: _Loader, parent: Any = None, index: Any = None) -> Any:
    depth = getattr(loader, "_depth", 0)
    if depth >= MAX_YAML_DEPTH:
        raise ConfigError(f"the YAML nests deeper than {MAX_YAML_DEPTH} levels")
    loader._depth = depth + 1  # type: ignore[attr-defined]
    try:
        return yaml.composer.Composer.compose_node(loader, parent, index)
    finally:
        loader._depth = depth  # type: ignore[attr-defined]


_Loader.compose_node = _compose_bounded  # type: ignore[method-assign]


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """How many values ``node`` stands for once every alias is copied out (a "billion
    laughs" document of 300 bytes stands for 10^9)."""
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = 1  # a cycle (an alias inside its own anchor) counts once
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(v, memo) for v in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[id(node)] = size = min(size, MAX_YAML_VALUES + 1)
    return size


def read_yaml(stream: Any) -> Any:
    """A YAML document (a string or an open file), safely, with YAML 1.2's numbers.

    Bounded: at most :data:`MAX_CONFIG_BYTES` of text, :data:`MAX_YAML_DEPTH`
    levels and :data:`MAX_YAML_VALUES` values with aliases expanded; beyond
    them a :class:`ConfigError`.
    """
    text = stream if isinstance(stream, str) else stream.read(MAX_CONFIG_BYTES + 1)
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"the YAML is over {MAX_CONFIG_BYTES} characters; a config is a few lines"
        )
    loader = _Loader(text)  # a SafeLoader
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_YAML_VALUES:
            raise ConfigError(
                f"the YAML stands for more than {MAX_YAML_VALUES} values once its aliases "
                "are expanded; a config is a few lines"
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def read_yaml_file(path: str | os.PathLike) -> Any:
    """The YAML document in the file ``path`` (:func:`read_yaml`), read only where it is a
    regular file of at most :data:`MAX_CONFIG_BYTES` (a FIFO, a device or a folder is refused
    before it is opened, and opened so that one put in its place cannot block)."""
    where = f"config {os.fspath(path)!r}"
    raw = read_bounded(path, where, MAX_CONFIG_BYTES, "a config is read up to", ConfigError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{where} is not UTF-8 text") from None
    try:
        return read_yaml(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{where}: not valid YAML ({e})") from None
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None
