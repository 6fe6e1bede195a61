"""Class: the room plays the attacker (issue 61). The teacher opens a room and starts its rounds; each student joins on
a phone (``class?room=<code>``), gets a release of their own with or without Alice, and answers; the teacher's screen
draws the room's answers against the bound the guarantee promises. Everything is in ui.classroom and the library's
dppca_core.classroom; this page only picks the view."""

from ui import classroom, scenario, show
from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

with boundary("the class game"):
    classroom.page(scenario.settings().class_room, show.presenting())
