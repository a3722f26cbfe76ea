"""The translation stage's names for the stages above it (check, build, exports, the CLI).

They import from here, whichever module of the package holds a name, so that moving code inside
the package changes no other stage. Nothing is defined here.
"""

from __future__ import annotations

from pnp.translation.checks import translation_findings as translation_findings
from pnp.translation.commands import Status as Status
from pnp.translation.commands import extract as extract
from pnp.translation.commands import import_sheet as import_sheet
from pnp.translation.commands import render_status as render_status
from pnp.translation.commands import status as status
from pnp.translation.localize import Fallbacks as Fallbacks
from pnp.translation.localize import Localized as Localized
from pnp.translation.localize import check_language as check_language
from pnp.translation.localize import localize as localize
