"""Pictures of a position: an SVG (and PNG) of the map with every unit in its hex, and a text board.

Every hex is a ``<polygon class="hex" data-hex="CCRR">`` and every unit a ``<g class="unit"
data-unit="ID" data-hex="CCRR" data-side="..." data-strength="full|half">`` centred on its hex, so
tools can read a rendered board back.

>>> import engine
>>> game = engine.new_game("standard", seed="doc")
>>> svg = board_svg(game)
>>> svg.count('class="hex"'), svg.count('class="unit"')
(140, 13)
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from engine import Game

SIZE = 36.0  # hex radius, in SVG units
HEIGHT = math.sqrt(3) * SIZE
MARGIN = 24.0
HEADER = 40.0

TERRAIN_FILL = {"clear": "#f4eed7", "forest": "#a9cf98"}
SIDE_FILL = {"german": "#7ea6d8", "soviet": "#c98f5c"}
SIDE_FILL_HALF = {"german": "#c3d6ee", "soviet": "#e6c6a8"}
# hexside index of each direction for a flat-topped hex whose vertex k sits at 60·k degrees (y down)
EDGE = {"SE": 0, "S": 1, "SW": 2, "NW": 3, "N": 4, "NE": 5}


def hex_center(column: int, row: int) -> tuple[float, float]:
    """Centre of hex (column, row) in SVG units: odd columns sit half a hex higher than even ones."""
    x = MARGIN + SIZE + (column - 1) * 1.5 * SIZE
    y = MARGIN + HEADER + HEIGHT / 2 + (row - 1) * HEIGHT + (HEIGHT / 2 if column % 2 == 0 else 0.0)
    return x, y


def hex_corners(column: int, row: int) -> list[tuple[float, float]]:
    cx, cy = hex_center(column, row)
    return [(cx + SIZE * math.cos(math.radians(60 * k)), cy + SIZE * math.sin(math.radians(60 * k)))
            for k in range(6)]


def _points(corners: list[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)


def board_svg(game: Game, title: str | None = None) -> str:
    """The position as an SVG document."""
    board = game.board
    width = 2 * MARGIN + SIZE * (1.5 * (board.columns - 1) + 2)
    height = 2 * MARGIN + HEADER + HEIGHT * (board.rows + 0.5)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans, sans-serif">',
           '<rect width="100%" height="100%" fill="#ffffff"/>']
    points = game.victory_points()
    heading = title or (f"Turn {game.turn} · {game.phase.name.replace('_', ' ')} · {game.weather().title} · "
                        f"VP German {points['german']} Soviet {points['soviet']}")
    if game.result():
        result = game.result()
        heading += f" · {'draw' if result.winner == 'draw' else result.winner + ' wins'}"
    out.append(f'<text class="heading" x="{MARGIN}" y="{MARGIN + 18}" font-size="18">{escape(heading)}</text>')

    out.append('<g class="terrain">')
    for index, hex_id in enumerate(board.ids):
        column, row = board.coords[index]
        fill = TERRAIN_FILL["forest" if board.forest[index] else "clear"]
        out.append(f'<polygon class="hex" data-hex="{hex_id}" points="{_points(hex_corners(column, row))}" '
                   f'fill="{fill}" stroke="#8c8577" stroke-width="1"/>')
        if index in board.forts:
            cx, cy = hex_center(column, row)
            out.append(f'<circle class="fort" cx="{cx:.1f}" cy="{cy:.1f}" r="{SIZE * 0.78:.1f}" fill="none" '
                       f'stroke="#8b5a2b" stroke-width="4" stroke-dasharray="5 3"/>')
        cx, cy = hex_center(column, row)
        out.append(f'<text class="hex-id" x="{cx:.1f}" y="{cy - HEIGHT / 2 + 10:.1f}" font-size="8" '
                   f'text-anchor="middle" fill="#6b655a">{hex_id}</text>')
    out.append('</g>')

    out.append('<g class="rail">')
    for index, linked in enumerate(board.rail_links):
        for other in linked:
            if other > index:
                (x1, y1), (x2, y2) = hex_center(*board.coords[index]), hex_center(*board.coords[other])
                out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#333333" '
                           f'stroke-width="2" stroke-dasharray="6 3"/>')
    out.append('</g>')

    out.append('<g class="rivers">')
    for index, neighbours in enumerate(board.direction_to):
        for direction, other in neighbours.items():
            if other > index and board.river_between(index, other):
                corners = hex_corners(*board.coords[index])
                k = EDGE[direction]
                (x1, y1), (x2, y2) = corners[k], corners[(k + 1) % 6]
                out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#3b7dd8" '
                           f'stroke-width="5" stroke-linecap="round"/>')
    out.append('</g>')

    out.append('<g class="cities">')
    for index, name in board.cities.items():
        cx, cy = hex_center(*board.coords[index])
        owner = game.control.get(index, "")
        ring = SIDE_FILL.get(owner, "#000000")
        radius = 7 if index == board.capital else 5
        out.append(f'<circle class="city" data-hex="{board.ids[index]}" data-control="{owner}" cx="{cx:.1f}" '
                   f'cy="{cy + HEIGHT / 2 - 12:.1f}" r="{radius}" fill="#111111" stroke="{ring}" stroke-width="3"/>')
        out.append(f'<text x="{cx:.1f}" y="{cy + HEIGHT / 2 - 1:.1f}" font-size="9" text-anchor="middle" '
                   f'fill="#111111">{escape(name)}</text>')
    out.append('</g>')

    out.append('<g class="units">')
    for unit, counter in game.counters.items():
        if unit not in game.hex_of:
            continue
        index = game.hex_of[unit]
        cx, cy = hex_center(*board.coords[index])
        full = unit not in game.reduced
        fill = (SIDE_FILL if full else SIDE_FILL_HALF)[counter.side]
        w, h = SIZE * 1.05, SIZE * 0.8
        out.append(f'<g class="unit" data-unit={quoteattr(unit)} data-hex="{board.ids[index]}" '
                   f'data-side="{counter.side}" data-strength="{"full" if full else "half"}" '
                   f'transform="translate({cx:.1f},{cy:.1f})">')
        out.append(f'<rect x="{-w / 2:.1f}" y="{-h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="3" '
                   f'fill="{fill}" stroke="#222222" stroke-width="1.2"/>')
        out.append(f'<text y="-3" font-size="9" text-anchor="middle" fill="#111111">{escape(unit)}</text>')
        out.append(f'<text y="10" font-size="10" font-weight="bold" text-anchor="middle" fill="#111111">'
                   f'{counter.strength(full)}-{counter.ma}</text>')
        out.append('</g>')
    out.append('</g>')
    out.append('</svg>')
    return "\n".join(out)


def board_png(game: Game, title: str | None = None, zoom: float = 1.5) -> bytes:
    """The position as a PNG image (the SVG rendered by resvg)."""
    import resvg_py

    return bytes(resvg_py.svg_to_bytes(svg_string=board_svg(game, title), zoom=zoom))


def text_board(game: Game) -> str:
    """The position as text: two lines per map row (odd columns, then the lower even columns).

    A hex shows its unit (``G`` German or ``S`` Soviet, the counter id, ``*`` if at half strength), or
    its terrain: ``.`` clear, ``^`` forest, ``#`` fortification, ``@`` a city (capitalised initial).
    """
    board = game.board
    cell = 10

    def show(index: int) -> str:
        unit = game.at.get(index)
        if unit:
            mark = "*" if unit in game.reduced else ""
            return f"{'G' if game.side_of(unit) == 'german' else 'S'}:{unit}{mark}"[:cell - 1]
        if index in board.cities:
            owner = game.control.get(index, "")
            return f"@{board.cities[index][:4]}{'g' if owner == 'german' else 's'}"
        if index in board.forts:
            return "#"
        return "^" if board.forest[index] else "."

    points = game.victory_points()
    lines = [f"Turn {game.turn}, {game.phase.name}, {game.weather().title}; "
             f"VP German {points['german']} Soviet {points['soviet']}"]
    lines.append("     " + "".join(f"{c:02d}".ljust(cell) for c in range(1, board.columns + 1)))
    for row in range(1, board.rows + 1):
        for parity in (1, 0):
            cells = []
            for column in range(1, board.columns + 1):
                if column % 2 == parity:
                    cells.append(show(board.index[f"{column:02d}{row:02d}"]).ljust(cell))
                else:
                    cells.append(" " * cell)
            label = f"{row:02d}   " if parity == 1 else "     "
            lines.append((label + "".join(cells)).rstrip())
    return "\n".join(lines)
