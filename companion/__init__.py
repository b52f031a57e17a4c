"""The domino table companion: rules core, game log, live session and command line."""

__version__ = "0.1.0"
