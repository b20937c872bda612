"""Shipped policies: ``NAME.npz`` with its card ``NAME.md`` and learning curve ``NAME.png``.

This folder is installed as the package data ``sixtysix_env.checkpoints``
(see ``pyproject.toml``), so ``make_agent("NAME")`` finds each policy by
name after a plain ``pip install``; :mod:`sixtysix_env.policy.shipped` lists them.
"""
