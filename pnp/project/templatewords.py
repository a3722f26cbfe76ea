"""The words a template writes itself, in the language drawn: gettext and the `label` filter.

Card layouts and sheet files follow Jinja's gettext conventions: `{{ _('Home') }}` and
`{% trans name=name %}Hello {{ name }}{% endtrans %}` (placeholders as `%(name)s` in the catalog).
Every template environment understands them (`install_words`); the source language draws the
text as written, a language build installs a lookup in its catalog. `messages` lists what a
template asks to translate (for `pnp translate extract`). The `label` filter prints an enum
value's label (`x-labels`, or `oneOf` `const`/`title` in the kind's schema), on cards as on sheets.

Old-style gettext is used, so a `trans` block's placeholders are filled by the sandbox's own `%`
(pnp.project.sandbox counts its result before it is built): the bounds on work stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Jinja loads with the first environment (pnp.project.loaded reads uses_label without it)
    from jinja2.runtime import Context

Lookup = Callable[["Context", str], str]
GETTEXT_NAMES = ("_", "gettext")  # the calls a catalog translates (plural forms are not used)
LABEL_FILTER = re.compile(r"\|\s*label\b")


def humanize(value: Any) -> str:
    """An enum value without a label: 'core-non-city' -> 'Core non city'."""
    text = str(value).replace("-", " ").replace("_", " ")
    return text[:1].upper() + text[1:]


def install_words(env: Any, lookup: Lookup | None = None) -> None:
    """`_`, `gettext` and `ngettext` in a template environment (with Jinja's i18n extension):
    `lookup(context, msgid)` gives a text in the language drawn; None draws the source text."""
    from jinja2 import pass_context

    @pass_context
    def gettext(context: Context, message: Any) -> str:
        text = str(message)
        return lookup(context, text) if lookup is not None else text

    def ngettext(singular: Any, plural: Any, count: Any) -> str:  # not translated (docs/translations.md)
        return str(singular if count == 1 else plural)

    env.globals.update({"_": gettext, "gettext": gettext, "ngettext": ngettext})


def messages(env: Any, source: str) -> Iterator[tuple[int, str]]:
    """(line within `source`, msgid) of every constant text the template asks to translate."""
    if "_" not in source and "trans" not in source:
        return
    for line, name, message in env.extract_translations(source, GETTEXT_NAMES):
        if name in GETTEXT_NAMES and isinstance(message, str) and message.strip():
            yield line, message


def uses_label(data: Any) -> bool:
    """True when some template of a layout's data uses the `label` filter."""
    if isinstance(data, str):
        return LABEL_FILTER.search(data) is not None
    if isinstance(data, dict):
        return any(uses_label(v) for v in data.values())
    return isinstance(data, list) and any(uses_label(v) for v in data)


def label_filter(labels: Callable[[Context], dict[str, dict[str, str]]]) -> Callable[..., Any]:
    """`{{ region | label('region') }}`: the printed label of an enum value (lists item by item);
    `labels(context)` gives field -> value -> label for the record drawn."""
    from jinja2 import pass_context

    @pass_context
    def label(context: Context, value: Any, field_name: str) -> Any:
        if isinstance(value, list):
            return [label(context, v, field_name) for v in value]
        found = labels(context).get(str(field_name), {}).get(str(value))
        return found if found is not None else humanize(value)

    return label
