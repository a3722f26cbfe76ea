"""`pnp diff`: what changed between two versions of a game, in its data and on its faces.

`gitsource` reads a version of the project out of git objects into a private folder (no checkout),
`compare` loads both versions and sets them side by side (records by kind and id, field by field;
faces by their digests), `report` prints the result (text, json, github), and `visual` writes
output/diff/: the before-and-after page and the errata PDF of the changed faces.
"""
