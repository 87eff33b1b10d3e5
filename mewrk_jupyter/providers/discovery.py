"""The models a server lists itself (`models: discover`): asked for once per vendor, kept until its file
changes or a new session starts, and only in a folder the person trusts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..config import Config, ModelConfig, VendorConfig, trust_state
from ..config.secrets import is_reference
from ..errors import ConfigError
from .unstreamed import shown_address

# A server that did not answer is asked again after this long, so one that was started meanwhile is found
# without a new session, while a turn's dozen questions about its model make one request, not twelve, and
# a settings panel open on a server that is down waits for it at most once in this long.
RETRY_AFTER = 30.0


class ListedModel(BaseModel):
    """One model a server lists: its name and, when the server says it, its context window."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    context_window: int | None = None


class ListingFailed(Exception):
    """The server did not give its list of models; the message says why, without a secret."""


class KeyRefused(ListingFailed):
    """The server refused the credentials the listing was asked with (HTTP 401 or 403)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"it refused the credentials, HTTP {status}")
        self.status = status


@dataclass(frozen=True)
class Listing:
    """What asking a vendor's server for its models gave: the models, or the sentence saying why none."""

    vendor: VendorConfig  # the configuration it was asked with: a saved file asks again
    models: dict[str, ModelConfig]
    problem: str
    at: float

    def fresh(self, vendor: VendorConfig) -> bool:
        """Whether this listing still stands for `vendor` as it is configured now."""
        if self.vendor is not vendor:
            return False
        return not self.problem or time.monotonic() - self.at < RETRY_AFTER


_listings: dict[tuple[Path | None, str], Listing] = {}
_lock = threading.Lock()
# One request at a time per vendor: two threads asking at once share its answer.
_asking: dict[tuple[Path | None, str], threading.Lock] = {}


def listing(
    home: Path | None, name: str, vendor: VendorConfig, ask: Callable[[], list[ListedModel]]
) -> Listing:
    """The vendor's listing, asked for with `ask` only when none stands (see `Listing.fresh`)."""
    key = (home, name)
    with _lock:
        found = _listings.get(key)
        if found is not None and found.fresh(vendor):
            return found
        asking = _asking.setdefault(key, threading.Lock())
    with asking:
        with _lock:
            found = _listings.get(key)
        if found is not None and found.fresh(vendor):
            return found
        found = _ask(name, vendor, ask)
        with _lock:
            _listings[key] = found
        return found


def _ask(name: str, vendor: VendorConfig, ask: Callable[[], list[ListedModel]]) -> Listing:
    where = f"llm/{name}.yaml"
    address = shown_address(vendor.base_url, "the default address")
    try:
        listed = ask()
    except KeyRefused as exc:
        return Listing(vendor, {}, _refused(where, address, vendor, exc.status), time.monotonic())
    except ListingFailed as exc:
        return Listing(vendor, {}, _sentence(where, address, str(exc)), time.monotonic())
    if not listed:
        return Listing(vendor, {}, _sentence(where, address, "it lists no models"), time.monotonic())
    models = {model.name: ModelConfig(context_window=model.context_window) for model in listed}
    return Listing(vendor, models, "", time.monotonic())


def _sentence(where: str, address: str, why: str) -> str:
    return (
        f"{where} says models: discover, but the server at {address} gave no list of its models ({why}); "
        "its models are not offered until it does — start it or fix base_url, then open a new session."
    )


def _refused(where: str, address: str, vendor: VendorConfig, status: int) -> str:
    """The sentence for a server that refused the key: which reference in which file gave it, never the
    key itself nor what the server said (its answer may quote the key)."""
    references = [f"api_key ({vendor.api_key})"] if vendor.api_key else []
    references += [f"headers.{h} ({v})" for h, v in vendor.headers.items() if is_reference(v)]
    given = " and ".join(references) if references else "no api_key"
    return (
        f"{where} says models: discover, but the server at {address} refused the credentials (HTTP "
        f"{status}) that {given} gave; its models are not offered until it accepts them — check the key "
        "that reference holds, then open a new session."
    )


def forget(home: Path | None) -> None:
    """Drop the listings of the folder `home`, so that the next question asks its servers again."""
    with _lock:
        for key in [key for key in _listings if key[0] == home]:
            del _listings[key]


def discovered_models(
    config: Config, name: str, vendor: VendorConfig, ask: Callable[[], list[ListedModel]]
) -> dict[str, ModelConfig]:
    """The models of a discovering vendor (ConfigError with the listing's sentence when it has none).

    In a folder not trusted yet nothing is asked: no model is known, and the trust sentence says why.
    """
    state = trust_state(config)
    if not state.trusted:
        raise ConfigError(state.sentence)
    found = listing(config.home, name, vendor, ask)
    if found.problem:
        raise ConfigError(found.problem)
    return found.models
