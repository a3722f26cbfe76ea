"""Translations: one catalog per language, checked like the records and drawn by the same renderer.

What is translatable is declared, never hard-coded: record fields the schema marks `x-text` (and
`name`, and any field with `"x-translate": true`; `"x-translate": false` keeps one out), plus the
static strings of layouts (a stat's `label` such as "ATK", a text element's fixed `text`) and
the fixed strings of sheet files (headings, titles, column headers, `labels`).
Catalogs are gettext files `translations/<lang>.po` (read and written by Babel): `msgctxt` is
`record-id/pointer` (`archer/ability`), `layout:<layout file>` for layout strings or
`sheet:<sheet file>/pointer` for sheet strings, `msgid` is the source text. The msgid is the digest of the source: when the source changes, the entry no
longer matches (stale), and `pnp translate extract` marks it fuzzy with the old text kept as
`#| msgid`, as msgmerge does. The languages are `[build] languages` in pnp.toml, source first.

The modules: `units` (the shared names: contexts, Unit, Entry, CatalogFile), `sources` (what is
translatable), `catalogs` (reading and writing .po files), `checks` (what `pnp check` finds in a
catalog), `localize` (a project in one language, for drawing), `sheetwords` (sheet words from no
sheet file), `commands` (`pnp translate extract/import/status`) and `translate` (the names the
stages above import).
"""
