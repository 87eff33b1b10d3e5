"""The bases of the protocol's messages: what the kernel sends, what a view sends, and an action."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Id = Annotated[str, Field(min_length=1)]


class SentModel(BaseModel):
    """What the kernel sends: every field is always on the wire (null rather than absent)."""

    model_config = ConfigDict(extra="forbid")


class FromView(BaseModel):
    """A message from a view: nothing the kernel does not read."""

    model_config = ConfigDict(extra="forbid")


class ActionBase(FromView):
    """An action a view asks of the session; the connection adds `type`, `view` and `req`."""

    type: Literal["action"] = "action"
    view: str | None = None
    req: int | None = None  # the view's number for the request; its `result` carries it back
