"""Agents of your own, built on models other libraries trained (docs/own-agent.md).

Each module is one agent class, named on the command line as
``examples.own_agents.<module>:<Class>:path=<file>`` from the repository's
root (``sixtysix eval`` imports it from the current folder):

* :mod:`.tianshou_agent` - a Tianshou DQN policy (``torch.save`` of its state dict);
* :mod:`.torchrl_agent` - a TorchRL ``MLP`` (the actor's network);
* :mod:`.rllib_agent` - an RLlib checkpoint (``Algorithm.save_to_path``).

They import their library only when used, so this package imports nothing
beyond the standard library.
"""
