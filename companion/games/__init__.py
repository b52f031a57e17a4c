"""The game registry: every game module registers its :class:`Game` subclass here.

``find_game("allfives")`` (or an alias) returns the class; an unknown name raises
:class:`UnknownGameError` listing the known names.
"""

from __future__ import annotations

import importlib

from companion.errors import UnknownGameError
from companion.games.base import Event, Game, Option

#: The game modules, in the order the seeds list them. Each defines one Game subclass and
#: decorates it with :func:`register`.
GAME_MODULES = ("stackernoes", "buildup", "allfives", "chickenfoot", "castlerock", "fortytwo",
                "moon", "super")

_REGISTRY: dict[str, type[Game]] = {}
_ALIASES: dict[str, str] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make ``cls`` findable by its name and aliases."""
    for key in (cls.name, *cls.aliases):
        key = key.lower()
        if key in _ALIASES and _ALIASES[key] != cls.name:
            raise ValueError(f"game name {key!r} is taken by {_ALIASES[key]}")
        _ALIASES[key] = cls.name
    _REGISTRY[cls.name] = cls
    return cls


def _load_all() -> None:
    if len(_REGISTRY) < len(GAME_MODULES):
        for mod in GAME_MODULES:
            importlib.import_module(f"companion.games.{mod}")


def game_names() -> list[str]:
    """The canonical names of every registered game."""
    _load_all()
    return [m for m in GAME_MODULES if m in _REGISTRY]


def find_game(name: str) -> type[Game]:
    """The Game class called ``name`` (case-insensitive; aliases accepted)."""
    _load_all()
    key = str(name).strip().lower()
    if key not in _ALIASES:
        raise UnknownGameError(f"no game called {name!r}; known games: {', '.join(game_names())}")
    return _REGISTRY[_ALIASES[key]]


def new_game(name: str, players: list[str], options: dict | None = None) -> Game:
    """A fresh match of game ``name``."""
    return find_game(name)(players, options)


__all__ = ["Event", "Game", "Option", "register", "find_game", "new_game", "game_names",
           "GAME_MODULES"]
