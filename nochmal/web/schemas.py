"""The base of every request body model (the app's and the rooms' routers): unknown keys and
text no UTF-8 writer can store (nochmal/web/errors.py refuse_surrogates) are refused."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator

from nochmal.web.errors import refuse_surrogates


class Body(BaseModel):
    """A request body: a key the model does not know is refused (422 naming it), not ignored,
    so a typo such as ``{"seed": 1}`` sent to /api/score is not silently answered as something else;
    text that no UTF-8 writer can store is refused before any field is read."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _valid_unicode(cls, data):
        return refuse_surrogates(data)
