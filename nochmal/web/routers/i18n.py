"""The JSON catalog per language (docs/web.md "Languages"): what the pages' ``t()``
(static/common.js) looks strings up in, read from the same .po catalogs as everything else."""

from __future__ import annotations

from fastapi import APIRouter, Path as PathParam
from pydantic import BaseModel, Field

from nochmal.i18n import LANGUAGES
from nochmal.web.errors import WebError
from nochmal.web.language import UNKNOWN_LANGUAGE, js_catalog, js_plurals

router = APIRouter(prefix="/api", tags=["languages"])


class Catalog(BaseModel):
    lang: str = Field(description="One of de, en, nl, fr, pl.")
    messages: dict[str, str] = Field(description="The scripts' messages: English text -> this language's.")
    plurals: dict[str, list[str]] = Field(default_factory=dict, description="The scripts' messages with plural "
                                          "forms: English singular -> this language's forms, in the catalog's order.")


@router.get("/i18n/{lang}", response_model=Catalog, summary="The scripts' messages in one language")
async def catalog(lang: str = PathParam(..., max_length=8)) -> Catalog:  # read once, cached: no thread needed
    if lang not in LANGUAGES:
        raise WebError(UNKNOWN_LANGUAGE, "lang", 404)
    return Catalog(lang=lang, messages=js_catalog(lang), plurals=js_plurals(lang))
