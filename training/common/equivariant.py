"""An actor that cannot tell the suits apart (option ``actor_symmetry: suits``).

The rules treat the four suits alike, so renaming the suits of a position
renames the suits of its best moves. A plain network has to learn that once
per suit; ``play_symmetry`` averages a trained network over the 24 renamings
at play time (24 forward passes). This module builds the symmetry into the
layers instead, the way DeepSets-style equivariant layers do (Zaheer et al.
2017; Ravanbakhsh et al. 2017), so that one forward pass gives, for every
renaming of a position, the renamed logits.

Each layer's inputs and outputs are split into per-suit channels (four copies
of the same channel list, one per suit) and global channels. The most general
linear map that commutes with every renaming of the suits has five weight
blocks and two biases, shared by all suits:

* a suit's channel to the same suit's channel (``same``),
* a suit's channel to each other suit's channel (``other``),
* a suit's channel to a global channel (``to_global``: the sum over the suits),
* a global channel to each suit's channel (``from_global``),
* a global channel to a global channel (``global_``).

The activation acts entry by entry, so a stack of such layers commutes with
the renamings too. The trump suit is a per-suit input (``trump_suit``), so a
channel can single it out (ReLU can zero a channel outside the trump suit,
after which the sum over suits is the trump suit's own value).

The observation's own order is kept: which entry belongs to which suit comes
from :data:`~sixtysix_env.policy.observation.CARD_FIELDS` and
:data:`~sixtysix_env.policy.observation.SUIT_FIELDS`, the same table the
renamings use. Each layer is a dense matrix gathered from the shared blocks,
so the trained actor *is* a plain multi-layer perceptron with tied weights:
it exports to the ordinary policy file (format version 1, numpy, one pass)
and every consumer of policy files plays it unchanged.

Widths: a hidden layer of ``n`` units has ``n // 5`` channels per suit and the
rest global (``n - 4 * (n // 5)``), so ``net_arch`` keeps its meaning of
units per layer. The output layer is the 34 action ids: per suit, its six
cards (actions ``suit * 6 + rank``) and its two marriages (``24 + 2 * suit +
0/1``); globally the exchange and the close.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch as th
from torch import nn

from sixtysix_env.game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, NUM_ACTIONS
from sixtysix_env.game.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from sixtysix_env.policy.observation import CARD_FIELDS, FIELDS, OBS_SIZE, SUIT_FIELDS

#: The values of option ``actor_symmetry`` that build an actor of this module.
ACTOR_SYMMETRIES = ("suits",)


@dataclass(frozen=True)
class Layout:
    """Which suit (or -1: global) and which channel each entry of a vector is."""

    suit: np.ndarray  # (n,) int: 0-3, or -1 for a global entry
    channel: np.ndarray  # (n,) int: the channel within its suit, or the global channel
    per_suit: int  # channels per suit
    n_global: int  # global channels

    def __post_init__(self) -> None:
        n = len(self.suit)
        assert len(self.channel) == n == NUM_SUITS * self.per_suit + self.n_global
        for s in range(NUM_SUITS):  # each suit has each channel exactly once
            assert sorted(self.channel[self.suit == s]) == list(range(self.per_suit))
        assert sorted(self.channel[self.suit < 0]) == list(range(self.n_global))

    @property
    def size(self) -> int:
        return len(self.suit)


@functools.lru_cache(maxsize=1)
def observation_layout() -> Layout:
    """The observation: each card field gives every suit six channels (its ranks), each
    suit field one; everything else is global, in the observation's order."""
    suit = np.full(OBS_SIZE, -1, dtype=np.int64)
    channel = np.zeros(OBS_SIZE, dtype=np.int64)
    per_suit = 0
    n_global = 0
    for name, start, n in FIELDS:
        if name in CARD_FIELDS:
            assert n == NUM_CARDS
            for i in range(n):
                suit[start + i] = i // NUM_RANKS
                channel[start + i] = per_suit + i % NUM_RANKS
            per_suit += NUM_RANKS
        elif name in SUIT_FIELDS:
            assert n == NUM_SUITS
            for i in range(n):
                suit[start + i] = i
                channel[start + i] = per_suit
            per_suit += 1
        else:
            for i in range(n):
                channel[start + i] = n_global
                n_global += 1
    return Layout(suit, channel, per_suit, n_global)


@functools.lru_cache(maxsize=1)
def action_layout() -> Layout:
    """The action ids: per suit its six cards then its two marriages; exchange and close global."""
    suit = np.full(NUM_ACTIONS, -1, dtype=np.int64)
    channel = np.zeros(NUM_ACTIONS, dtype=np.int64)
    for a in range(NUM_CARDS):
        suit[a], channel[a] = a // NUM_RANKS, a % NUM_RANKS
    for i in range(2 * NUM_SUITS):
        suit[FIRST_MARRIAGE + i], channel[FIRST_MARRIAGE + i] = i // 2, NUM_RANKS + i % 2
    for k, a in enumerate((EXCHANGE, CLOSE)):
        channel[a] = k
    assert FIRST_MARRIAGE + 2 * NUM_SUITS == EXCHANGE and CLOSE == NUM_ACTIONS - 1
    return Layout(suit, channel, NUM_RANKS + 2, 2)


@functools.lru_cache(maxsize=None)
def hidden_layout(width: int) -> Layout:
    """A hidden layer of ``width`` units: ``width // 5`` channels per suit (suit-major), the
    rest global."""
    per_suit = width // 5
    if per_suit < 1:
        raise ValueError(f"a suit-symmetric hidden layer needs at least 5 units, got {width}")
    n_global = width - NUM_SUITS * per_suit
    suit = np.concatenate([np.repeat(np.arange(NUM_SUITS), per_suit), np.full(n_global, -1)])
    channel = np.concatenate([np.tile(np.arange(per_suit), NUM_SUITS), np.arange(n_global)])
    return Layout(suit.astype(np.int64), channel.astype(np.int64), per_suit, n_global)


def _tying(
    inp: Layout, out: Layout
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, tuple[int, int]]]]:
    """(weight index (in, out), bias index (out,), blocks): where each entry of the dense
    matrix and bias lies in the flat vector of the shared blocks, and each block's (start,
    stop, shape) in it: the five weight blocks ``(in, out)``, then the suit and the global
    biases ``(1, out)``."""
    shapes = [
        (inp.per_suit, out.per_suit),  # same suit
        (inp.per_suit, out.per_suit),  # other suit
        (inp.per_suit, out.n_global),  # suit -> global
        (inp.n_global, out.per_suit),  # global -> suit
        (inp.n_global, out.n_global),  # global -> global
        (1, out.per_suit),  # bias of the suit channels
        (1, out.n_global),  # bias of the global channels
    ]
    offsets = np.cumsum([0] + [a * b for a, b in shapes])
    si, so = inp.suit[:, None], out.suit[None, :]
    ci, co = inp.channel[:, None], out.channel[None, :]
    block = np.where(
        si >= 0,
        np.where(so >= 0, np.where(si == so, 0, 1), 2),
        np.where(so >= 0, 3, 4),
    )
    cols = np.array([s[1] for s in shapes])
    weight = offsets[block] + ci * cols[block] + co
    bias = np.where(out.suit >= 0, offsets[5] + out.channel, offsets[6] + out.channel)
    blocks = [(int(a), int(b), shape) for a, b, shape in zip(offsets, offsets[1:], shapes)]
    return weight.astype(np.int64), bias.astype(np.int64), blocks


def _suit_major(layout: Layout) -> np.ndarray:
    """The entries of ``layout`` in suit-major order: suit 0's channels in order, ... suit
    3's, then the global channels in order."""
    key = np.where(layout.suit >= 0, layout.suit, NUM_SUITS)
    return np.lexsort((layout.channel, key))


def _unless_identity(index: np.ndarray) -> th.Tensor | None:
    return None if np.array_equal(index, np.arange(len(index))) else th.as_tensor(index)


class _Gather(th.autograd.Function):
    """``params[index]``, whose gradient is summed into ``params`` with ``index_add_``.

    Indexing's own backward is a scatter-add that, with two or more torch threads,
    sums each parameter's entries in a varying order, so two runs of one seed
    drifted apart. ``index_add_`` sums them in index order whatever the number of
    threads: the same sums as one thread's scatter-add, bit for bit (a training run's
    speed did not change measurably).
    """

    @staticmethod
    def forward(ctx, params: th.Tensor, index: th.Tensor) -> th.Tensor:
        ctx.save_for_backward(index)
        ctx.size = params.shape[0]
        return params[index]

    @staticmethod
    def backward(ctx, grad: th.Tensor) -> tuple[th.Tensor, None]:
        (index,) = ctx.saved_tensors
        out = grad.new_zeros(ctx.size)
        out.index_add_(0, index.reshape(-1), grad.reshape(-1))
        return out, None


class SuitSymmetricLinear(nn.Module):
    """A dense layer whose matrix commutes with every renaming of the suits (module docstring).

    It holds the shared blocks as one parameter vector. With gradients (a PPO
    update) it multiplies by the blocks themselves (:meth:`_factored`); without
    (rollouts, evaluation) by the dense ``(out, in)`` weight gathered from them,
    kept while they are unchanged. :meth:`dense` gives the matrix and bias as a
    plain layer's (what the export writes).
    """

    def __init__(self, inp: Layout, out: Layout, gain: float = math.sqrt(2)) -> None:
        super().__init__()
        weight_index, bias_index, self._blocks = _tying(inp, out)
        self.in_features, self.out_features = inp.size, out.size
        self.register_buffer("weight_index", th.as_tensor(weight_index.T.copy()), persistent=False)
        self.register_buffer("bias_index", th.as_tensor(bias_index), persistent=False)
        n_weights = self._blocks[4][1]  # the end of the weight blocks; the biases follow
        params = th.zeros(int(bias_index.max()) + 1)
        # Each dense entry starts with the variance of a plain layer's (gain^2 / fan-in);
        # the biases start at 0, as SB3's.
        params[:n_weights].normal_(0.0, gain / math.sqrt(inp.size))
        self.params = nn.Parameter(params)
        self._frozen: tuple[tuple, tuple[th.Tensor, th.Tensor]] | None = None
        order, position = _suit_major(inp), _suit_major(out)
        # The inputs in suit-major order (suit 0's channels ... suit 3's, then the global
        # ones), and where each output lies in the suit-major result; None where the layout
        # is suit-major already (the hidden layers).
        self.register_buffer("in_order", _unless_identity(order), persistent=False)
        self.register_buffer("out_position", _unless_identity(np.argsort(position)), persistent=False)

    def dense(self) -> tuple[th.Tensor, th.Tensor]:
        """(weight ``(out, in)``, bias ``(out,)``): the layer as a plain ``nn.Linear``'s."""
        return _Gather.apply(self.params, self.weight_index), _Gather.apply(
            self.params, self.bias_index
        )

    def forward(self, x: th.Tensor) -> th.Tensor:
        if th.is_grad_enabled():
            return self._factored(x)
        # rollouts and evaluation: gather once per change of the parameters
        return nn.functional.linear(x, *self._dense_unchanged())

    def _factored(self, x: th.Tensor) -> th.Tensor:
        """The layer from its blocks, without the dense matrix: a suit's outputs are its own
        inputs times ``same - other`` plus the sum over the suits times ``other``, so the
        products are ``per_suit`` wide, not ``4 * per_suit``. The same map as
        ``linear(x, *dense())`` in another order of float sums, with about a third of its
        multiplications for the hidden layers of ``net_arch: [768, 768]``; what a PPO
        update's forward and backward passes run."""
        same, other, to_global, from_global, glob, bias_suit, bias_global = (
            self.params[start:stop].view(shape) for start, stop, shape in self._blocks
        )
        lead = x.shape[:-1]  # any leading dimensions, as nn.functional.linear takes them
        x = x.reshape(-1, x.shape[-1])
        if self.in_order is not None:
            x = x.index_select(1, self.in_order)
        batch = x.shape[0]
        n_in, n_out = same.shape
        suits = x[:, : NUM_SUITS * n_in].reshape(batch, NUM_SUITS, n_in)
        globals_ = x[:, NUM_SUITS * n_in :]
        total = suits.sum(1)
        shared = th.addmm(bias_suit, total, other) + globals_ @ from_global
        own = (suits.reshape(batch * NUM_SUITS, n_in) @ (same - other)).view(batch, NUM_SUITS, n_out)
        y = th.cat(
            [(own + shared[:, None, :]).reshape(batch, NUM_SUITS * n_out),
             th.addmm(bias_global, total, to_global) + globals_ @ glob],
            dim=1,
        )
        if self.out_position is not None:
            y = y.index_select(1, self.out_position)
        return y.reshape(*lead, y.shape[-1])

    def _dense_unchanged(self) -> tuple[th.Tensor, th.Tensor]:
        """:meth:`dense`, kept while ``params`` is unchanged: its version counter moves
        on every in-place write (an optimiser step, ``load_state_dict``) and a move to
        another device gives new storage. Gathering the 512-512 matrices on every
        rollout step took about 7% of a training run's time."""
        key = (self.params._version, self.params.data_ptr(), self.weight_index.data_ptr())
        if self._frozen is None or self._frozen[0] != key:
            with th.no_grad():
                self._frozen = (key, self.dense())
        return self._frozen[1]

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, suit-symmetric"


def suit_symmetric_actor(
    hidden: list[int], activation_fn: type[nn.Module]
) -> tuple[nn.Sequential, SuitSymmetricLinear]:
    """(the hidden layers with their activations, the action head) of an actor reading
    the observation (``OBS_SIZE`` entries) and giving the 34 action logits."""
    layers: list[nn.Module] = []
    inp = observation_layout()
    for width in hidden:
        out = hidden_layout(int(width))
        layers += [SuitSymmetricLinear(inp, out), activation_fn()]
        inp = out
    # SB3 starts its action head at gain 0.01 (near-uniform first policy); so does this one.
    head = SuitSymmetricLinear(inp, action_layout(), gain=0.01)
    return nn.Sequential(*layers), head


def dense_layers(
    params: list[np.ndarray], hidden: list[int]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight ``(in, out)``, bias) of each layer of :func:`suit_symmetric_actor`'s
    actor from its layers' parameter vectors (as a state dict holds them), in numpy."""
    layouts = [observation_layout(), *(hidden_layout(int(w)) for w in hidden), action_layout()]
    if len(params) != len(layouts) - 1:
        raise ValueError(
            f"{len(params)} suit-symmetric layers for {len(hidden)} hidden layers; expected "
            f"{len(layouts) - 1}"
        )
    out = []
    for p, inp, outp in zip(params, layouts, layouts[1:]):
        weight_index, bias_index, _ = _tying(inp, outp)
        p = np.asarray(p, dtype=np.float32)
        if p.shape != (int(bias_index.max()) + 1,):
            raise ValueError(
                f"a suit-symmetric layer {inp.size} -> {outp.size} has "
                f"{int(bias_index.max()) + 1} parameters, got an array of shape {p.shape}"
            )
        out.append((p[weight_index], p[bias_index]))
    return out
