"""Commands of the notebook's context: attach a variable or a cell's output, and export the session."""

from __future__ import annotations

from ..errors import InvalidInput
from .base import Call, Result
from .interpolate import evaluate

NO_KERNEL = (
    "attach reads the kernel's variables, and there is no kernel here; in Python, use `s.attach(obj)`."
)


def attach(call: Call) -> Result:
    """`attach NAME`: a variable, `Out[N]` or `In[N]` as a card at the end of the timeline (nothing is sent)."""
    if call.namespace is None:
        raise InvalidInput(NO_KERNEL)
    source = call.args[0]
    card = call.current.attach(evaluate(source, call.namespace, call.current.secret_check()), source)
    images = len(card.attachments)
    also = f" with {images} image{'s' * (images != 1)}" if images else ""
    said = f"Attached `{source}`{also} at the end of the timeline; the model reads it with your next message."
    return Result(said, markdown=f"{said} (`{card.id}`)", data={"card_id": card.id})


def export(call: Call) -> Result:
    """`export PATH`: the session written as a notebook (`.ipynb`) or Markdown (`.md`)."""
    written = call.current.export(call.args[0])
    # The full path: a person who typed `/etc/x.ipynb` or `../x.md` reads where it really went.
    said = f"Exported the session to {written}."
    return Result(said, markdown=f"Exported the session to `{written}`.", data={"path": str(written)})
