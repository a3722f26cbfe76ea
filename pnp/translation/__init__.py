"""Stage 4, translation: one catalog per language (docs/translations.md), checked like records,
and a translated copy of the loaded project that drawing and sheets draw as they draw the source."""
