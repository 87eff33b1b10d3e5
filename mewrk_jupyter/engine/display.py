"""How a session shows itself in a notebook, without the engine importing a surface.

A surface registers the factory of its view (the package registers the timeline widget when it is
imported); `Session.widget()` and displaying a session call it. The engine depends on the
factory's shape only, so the layers keep pointing down (DESIGN §1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards.inert import for_notebook
from ..errors import MewrkError
from .render import timeline_markdown

ViewFactory = Callable[[Any], Any]  # a session -> a view of it (an ipywidget, for the timeline widget)

_registered: list[ViewFactory] = []

NO_VIEW = (
    "No view of a session is registered: `import mewrk_jupyter` registers the timeline widget "
    "(or call mewrk_jupyter.engine.display.register_view with a factory of your own)."
)


def register_view(factory: ViewFactory) -> None:
    """Make `factory(session)` the view that `s.widget()` returns and that displaying `s` shows."""
    _registered[:] = [factory]


def make_view(session: Any) -> Any:
    """A new view of the session, from the registered factory."""
    if not _registered:
        raise MewrkError(NO_VIEW)
    return _registered[0](session)


def view_bundle(session: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """`display(s)`: the view, with the text and Markdown timeline for front ends without widgets."""
    data, metadata = make_view(session)._repr_mimebundle_()
    return {**data, "text/plain": repr(session), "text/markdown": markdown_view(session)}, metadata


def markdown_view(session: Any) -> str:
    """The session's timeline as the notebook's Markdown shows it (front ends without widgets)."""
    return for_notebook(timeline_markdown(session))
