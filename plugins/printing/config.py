"""The printing plugin's settings ([plugins.printing]); secrets are in the keyring, never here."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from workbench.core.settings import refuse_url_credentials


class PrintingSettings(BaseModel):
    # hide_input_in_errors: a refused URL may hold a password, which must not reach a message
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    slicer_path: str = Field("prusa-slicer", description="PrusaSlicer executable (name or path)")
    profiles_path: str = Field(
        "", description="Vendor profile bundle (empty: the one PrusaSlicer installs)"
    )
    default_printer: str = Field("MK3S", description="Printer preset or alias (MK3S, MINI, ...)")
    serial_baudrate: int = Field(115200, gt=0, description="USB serial speed")
    prusalink_url: str = Field("", description="PrusaLink address, e.g. http://192.168.1.20")
    prusalink_auth: Literal["api_key", "digest"] = Field(
        "api_key", description="X-Api-Key (MK3 PrusaLink) or HTTP digest (MINI/MK4 firmware)"
    )
    prusalink_user: str = Field("maker", description="Digest user name (password in the keyring)")
    slice_timeout_s: float = Field(600.0, gt=0, description="Give up slicing after this long")

    @model_validator(mode="after")
    def _no_password_in_url(self) -> PrintingSettings:
        bare = re.sub(r"//[^/@]*@", "//", self.prusalink_url)
        entry = prusalink_secret_key(bare, self.prusalink_auth)
        refuse_url_credentials(self.prusalink_url, "plugins.printing.prusalink_url", entry)
        return self


def prusalink_secret_key(url: str, auth: str) -> str:
    """The keyring entry of a PrusaLink host: its API key or its digest password."""
    return f"prusalink:{url.rstrip('/')}:{'api_key' if auth == 'api_key' else 'password'}"
