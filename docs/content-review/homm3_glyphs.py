"""Draws the HoMM III token glyphs (own vector drawings, 100x100 viewBox) in a dark and a pale tint."""
import math, pathlib
OUT = pathlib.Path(__file__).resolve().parents[2] / 'layouts' / 'art' / 'homm3'
def star(n, r1, r2, cx=50, cy=50):
    pts = []
    for i in range(2 * n):
        r = r1 if i % 2 == 0 else r2
        a = math.pi * i / n - math.pi / 2
        pts.append(f"{cx + r * math.cos(a):.1f},{cy + r * math.sin(a):.1f}")
    return f'<polygon points="{" ".join(pts)}" fill="C"/>'
def hexagon(r, cx=50, cy=50, fill='C', stroke=None):
    pts = " ".join(f"{cx + r * math.cos(math.pi / 3 * i):.1f},{cy + r * math.sin(math.pi / 3 * i):.1f}" for i in range(6))
    if stroke:
        return f'<polygon points="{pts}" fill="none" stroke="C" stroke-width="{stroke}"/>'
    return f'<polygon points="{pts}" fill="{fill}"/>'
SWORD_UP = '<polygon points="50,8 57,20 57,62 43,62 43,20" fill="C"/><rect x="32" y="62" width="36" height="7" fill="C"/><rect x="46" y="69" width="8" height="16" fill="C"/><circle cx="50" cy="89" r="5" fill="C"/>'
PERSON = lambda cx, cy, s: f'<circle cx="{cx}" cy="{cy - 14 * s:.1f}" r="{9 * s:.1f}" fill="C"/><path d="M{cx - 16 * s:.1f} {cy + 22 * s:.1f} Q{cx - 16 * s:.1f} {cy - 2 * s:.1f} {cx} {cy - 2 * s:.1f} Q{cx + 16 * s:.1f} {cy - 2 * s:.1f} {cx + 16 * s:.1f} {cy + 22 * s:.1f} Z" fill="C"/>'
G = {
 'time-token': '<polygon points="22,8 78,8 78,16 56,50 78,84 78,92 22,92 22,84 44,50 22,16" fill="C"/><polygon points="32,20 68,20 50,44" fill="P"/><polygon points="50,62 68,84 32,84" fill="P"/>',
 'monolith-one-way': '<rect x="36" y="10" width="28" height="80" rx="4" fill="C"/><polygon points="8,44 70,44 70,32 94,50 70,68 70,56 8,56" fill="C" stroke="P" stroke-width="3"/>',
 'monolith-two-way': '<rect x="36" y="10" width="28" height="80" rx="4" fill="C"/><polygon points="6,50 26,32 26,44 74,44 74,32 94,50 74,68 74,56 26,56 26,68" fill="C" stroke="P" stroke-width="3"/>',
 'fire-wall-token': '<path d="M50 6 C64 26 82 40 76 66 C72 84 60 94 50 94 C38 94 24 84 24 64 C24 48 36 40 38 24 C45 34 47 42 50 48 C55 36 57 22 50 6 Z" fill="C"/><path d="M50 56 C58 66 64 72 60 82 C58 88 54 90 50 90 C44 90 40 86 40 80 C40 72 46 68 50 56 Z" fill="P"/>',
 'summon-token': star(8, 44, 18) + '<circle cx="50" cy="50" r="10" fill="P"/>',
 'build-token': '<rect x="16" y="14" width="56" height="20" rx="3" fill="C"/><rect x="66" y="18" width="16" height="12" fill="C"/><rect x="41" y="34" width="14" height="56" rx="3" fill="C"/>',
 'population-token': PERSON(28, 52, 0.85) + PERSON(72, 52, 0.85) + PERSON(50, 46, 1.1),
 'paralysis-token': '<path d="M12 46 Q50 84 88 46" fill="none" stroke="C" stroke-width="8"/><line x1="26" y1="62" x2="18" y2="76" stroke="C" stroke-width="7"/><line x1="50" y1="68" x2="50" y2="84" stroke="C" stroke-width="7"/><line x1="74" y1="62" x2="82" y2="76" stroke="C" stroke-width="7"/><polyline points="60,16 78,16 60,36 78,36" fill="none" stroke="C" stroke-width="5"/><polyline points="80,4 92,4 80,16 92,16" fill="none" stroke="C" stroke-width="4"/>',
 'defense-token': '<path d="M50 6 L88 18 L84 54 C80 76 66 88 50 95 C34 88 20 76 16 54 L12 18 Z" fill="C"/><path d="M50 18 L76 27 L73 53 C70 68 61 77 50 83 Z" fill="P"/>',
 'quicksand-token': ''.join(f'<path d="M10 {y} Q25 {y - 10} 40 {y} T70 {y} T100 {y}" fill="none" stroke="C" stroke-width="7"/>' for y in (30, 52, 74)),
 'land-mine-token': ''.join(f'<line x1="50" y1="50" x2="{50 + 44 * math.cos(a):.1f}" y2="{50 + 44 * math.sin(a):.1f}" stroke="C" stroke-width="8"/>' for a in [math.pi / 4 * i for i in range(8)]) + '<circle cx="50" cy="50" r="28" fill="C"/><circle cx="41" cy="41" r="7" fill="P"/>',
 'force-field-token': hexagon(44, stroke=7) + hexagon(27, stroke=6) + hexagon(10),
 'token-clone': PERSON(38, 52, 1.15).replace('fill="C"', 'fill="none" stroke="C" stroke-width="5"') + PERSON(60, 56, 1.15),
 'weakness-token': SWORD_UP.replace('<polygon points="50,8', '<polygon points="50,8') + '<polygon points="74,52 96,52 85,70" fill="C"/><rect x="81" y="30" width="8" height="22" fill="C"/>',
 'attack-token': SWORD_UP + '<polygon points="74,30 96,30 85,12" fill="C"/><rect x="81" y="30" width="8" height="22" fill="C"/>',
 'corrosion-token': '<path d="M50 6 C60 28 80 46 80 64 C80 82 66 94 50 94 C34 94 20 82 20 64 C20 46 40 28 50 6 Z" fill="C"/><circle cx="40" cy="66" r="7" fill="P"/><circle cx="58" cy="76" r="5" fill="P"/><circle cx="57" cy="55" r="4" fill="P"/>',
 'stack-token': ''.join(f'<polygon points="50,{y} 88,{y + 14} 50,{y + 28} 12,{y + 14}" fill="C" stroke="P" stroke-width="3"/>' for y in (56, 36, 16)),
 'initiative-token': '<polygon points="10,18 44,50 10,82 10,64 26,50 10,36" fill="C"/><polygon points="44,18 78,50 44,82 44,64 60,50 44,36" fill="C"/><rect x="82" y="18" width="8" height="64" fill="C"/>',
}
def svg(body, c, p):
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">'
            + body.replace('"C"', f'"{c}"').replace('"P"', f'"{p}"') + '</svg>\n')
for name, body in G.items():
    (OUT / f'{name}.svg').write_text(svg(body, '#3b2f22', '#f3ead2'))
    (OUT / f'{name}-pale.svg').write_text(svg(body, '#e2d2ad', '#f3ead2'))
print(len(G))
