"""Cubes: the cards (shift and dependency-change), the deck and the hands.

Card codes: a shift card is its direction relative to the player who plays it (``F``
forward = away from the player, ``B`` back, ``L`` left, ``R`` right; ``FL``, ``FR``,
``BL``, ``BR`` diagonal in the ``eight`` deck) and its distance 1 or 2 (``F2``). A
dependency-change card is ``D<`` (everyone passes the card to the left neighbour), ``D>``
(to the right) or ``DS`` (the player swaps any two cards).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from rules.cubes_position import FORWARD

#: relative directions as (steps forward, steps to the left)
RELATIVE = {
    "F": (1, 0), "B": (-1, 0), "L": (0, 1), "R": (0, -1),
    "FL": (1, 1), "FR": (1, -1), "BL": (-1, 1), "BR": (-1, -1),
}
ORTHOGONAL = ("F", "B", "L", "R")
DIAGONAL = ("FL", "FR", "BL", "BR")
DEPENDENCY_CARDS = ("D<", "D>", "DS")
#: copies of each card in a deck, by the ``shift_directions`` option (40 shift cards and
#: 8 dependency-change cards either way)
DECKS = {
    "orthogonal": {
        **{f"{d}{n}": 5 for d in ORTHOGONAL for n in (1, 2)},
        "D<": 3, "D>": 3, "DS": 2,
    },
    "eight": {
        **{f"{d}{n}": 3 for d in ORTHOGONAL for n in (1, 2)},
        **{f"{d}{n}": 2 for d in DIAGONAL for n in (1, 2)},
        "D<": 3, "D>": 3, "DS": 2,
    },
}
HAND = 5
NAMES = {"F": "forward", "B": "back", "L": "left", "R": "right", "FL": "forward-left",
         "FR": "forward-right", "BL": "back-left", "BR": "back-right"}


def card_name(code: str) -> str:
    if code == "D<":
        return "'pass the dependency cards to the left'"
    if code == "D>":
        return "'pass the dependency cards to the right'"
    if code == "DS":
        return "'swap two dependency cards'"
    steps = "field" if code[-1] == "1" else "fields"
    return f"'shift {NAMES[code[:-1]]} {code[-1]} {steps}'"


def absolute(seat: str, relative: str) -> tuple[int, int]:
    """The board step (d_row, d_col) of a relative direction for a player at ``seat``."""
    fr, fc = FORWARD[seat]
    forward, left = RELATIVE[relative]
    # the left of someone looking along (fr, fc) is (-fc, fr)
    return (forward * fr - left * fc, forward * fc + left * fr)


def shift_card(seat: str, step: tuple[int, int], distance: int) -> str:
    """The card code that shifts by ``step`` x ``distance`` for a player at ``seat``."""
    for rel in RELATIVE:
        if absolute(seat, rel) == step:
            return f"{rel}{distance}"
    raise ValueError(f"no direction {step}")


def shift_kinds(deck: str) -> tuple[str, ...]:
    """The shift card codes a deck holds."""
    return tuple(code for code in DECKS[deck] if code not in DEPENDENCY_CARDS)


@dataclass(frozen=True)
class Cards:
    """Draw pile (top first), hands (sorted, by player), discard pile, and how the next
    reshuffle is seeded."""

    deck: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    discard: tuple[str, ...]
    seed: int
    shuffles: int = 0

    @classmethod
    def deal(cls, composition: str, players: int, rng: random.Random, seed: int) -> Cards:
        pile = [code for code, n in DECKS[composition].items() for _ in range(n)]
        rng.shuffle(pile)
        hands = tuple(tuple(sorted(pile[i * HAND:(i + 1) * HAND])) for i in range(players))
        return cls(tuple(pile[players * HAND:]), hands, (), seed)

    def holds(self, player: int, codes: tuple[str, ...]) -> bool:
        hand = list(self.hands[player])
        for code in codes:
            if code not in hand:
                return False
            hand.remove(code)
        return True

    def replace_cards(self, player: int, codes: tuple[str, ...]) -> Cards:
        """``player`` lays ``codes`` on the discard pile and draws as many; an empty draw
        pile is first replaced by the shuffled discard pile."""
        hand = list(self.hands[player])
        for code in codes:
            hand.remove(code)
        deck, discard, shuffles = list(self.deck), [*self.discard, *codes], self.shuffles
        for _ in codes:
            if not deck:
                deck, discard = discard, []
                random.Random(f"cubes:{self.seed}:{shuffles}").shuffle(deck)
                shuffles += 1
            hand.append(deck.pop(0))
        hands = list(self.hands)
        hands[player] = tuple(sorted(hand))
        return replace(self, deck=tuple(deck), hands=tuple(hands), discard=tuple(discard),
                       shuffles=shuffles)
