"""Training configs, installed as the package data ``sixtysix_training.configs``.

``sixtysix train --config NAME`` finds ``NAME.yaml`` here after a plain
``pip install`` (see :func:`sixtysix_training.config.loader.resolve_config`).
"""
