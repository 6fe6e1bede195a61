"""Handouts made from what may be published: the publishable brief and deck (:mod:`.brief`, from the publishable file
alone) and the offline slide decks they and the Lesson share (:mod:`.slides`). Pure functions returning HTML text."""

from . import brief, slides

__all__ = ["brief", "slides"]
