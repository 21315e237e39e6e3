"""The Battle for Moscow map transcribed from the printed map (reference/bfm-map.md), with its own
hex geometry, so that tests can check the engine against data they do not share with it."""

from __future__ import annotations

# The map, hex by hex, transcribed from the printed Battle for Moscow map (hex | terrain | city |
# fort | setup | rail directions | river hexsides).
MAP_TABLE = """\
| 0101 | clear |  |  |  |  |  |
| 0102 | clear |  |  |  | NE |  |
| 0103 | clear |  |  | german |  |  |
| 0104 | clear |  |  | german |  |  |
| 0105 | clear |  |  |  | NE | SE S |
| 0106 | clear |  |  | german |  | N |
| 0107 | clear |  |  | german |  |  |
| 0108 | clear |  |  |  |  |  |
| 0109 | clear |  |  |  |  |  |
| 0110 | clear |  |  |  | NE |  |
| 0201 | forest |  |  | german | SE SW |  |
| 0202 | forest |  |  | german |  |  |
| 0203 | clear |  |  | german |  |  |
| 0204 | clear | Smolensk |  | german | SE S SW | S |
| 0205 | clear |  |  | german | N SE | N NE NW |
| 0206 | clear |  |  | german |  |  |
| 0207 | forest |  |  |  |  |  |
| 0208 | forest |  |  |  |  |  |
| 0209 | clear |  |  | german | SE SW |  |
| 0210 | clear |  |  | german |  |  |
| 0301 | forest |  |  | soviet |  |  |
| 0302 | clear |  |  | soviet | NE NW |  |
| 0303 | clear |  |  | soviet |  |  |
| 0304 | clear |  |  | soviet |  |  |
| 0305 | clear |  |  | german | NE NW | SE S SW |
| 0306 | clear |  |  | german | S NW | N |
| 0307 | clear | Roslavl |  | german | N SE |  |
| 0308 | forest |  |  |  |  |  |
| 0309 | clear |  |  | german |  |  |
| 0310 | clear |  |  | german | NE NW |  |
| 0401 | forest |  |  |  | SE SW |  |
| 0402 | clear |  |  |  |  |  |
| 0403 | clear |  |  |  |  | SE |
| 0404 | clear |  |  |  | NE SW | NE SE S |
| 0405 | forest |  |  | soviet |  | N NW |
| 0406 | clear |  |  | german |  |  |
| 0407 | clear |  |  | german | SE NW |  |
| 0408 | forest |  |  | german |  |  |
| 0409 | forest |  |  | german | NE SW |  |
| 0410 | clear |  |  | german |  |  |
| 0501 | clear |  | yes |  |  |  |
| 0502 | clear |  | yes |  | NE NW |  |
| 0503 | clear |  | yes |  |  | SE S |
| 0504 | clear |  | yes | soviet | NE SW | N SE SW NW |
| 0505 | clear |  | yes | soviet |  | NE SE S NW |
| 0506 | clear |  | yes | soviet |  | N |
| 0507 | clear |  | yes | soviet |  |  |
| 0508 | clear |  |  | soviet | S NW |  |
| 0509 | clear | Bryansk |  | soviet | N NE SE S SW |  |
| 0510 | forest |  |  | soviet | N |  |
| 0601 | clear | Rzhev |  |  | SE S SW |  |
| 0602 | clear |  |  |  | N S |  |
| 0603 | clear | Vyazma |  |  | N SE SW | S NW |
| 0604 | forest |  |  |  |  | N NE SE SW NW |
| 0605 | clear |  |  |  |  | NE NW |
| 0606 | clear |  |  |  |  |  |
| 0607 | clear |  |  |  |  |  |
| 0608 | clear |  |  |  | NE SW |  |
| 0609 | clear |  |  |  | SE NW |  |
| 0610 | clear |  |  |  |  |  |
| 0701 | forest |  |  |  |  |  |
| 0702 | forest |  |  |  | SE NW |  |
| 0703 | forest |  |  |  |  |  |
| 0704 | forest |  |  |  | NE NW | SW |
| 0705 | clear |  |  |  |  | S SW NW |
| 0706 | clear |  |  |  |  | N NE |
| 0707 | clear |  |  |  | NE S |  |
| 0708 | forest |  |  |  | N SW |  |
| 0709 | clear |  |  |  |  |  |
| 0710 | clear |  |  |  | NE NW |  |
| 0801 | clear |  | yes |  |  |  |
| 0802 | clear |  | yes |  | NE NW |  |
| 0803 | clear | Mozhaisk | yes | soviet | NE SW |  |
| 0804 | clear |  | yes |  |  |  |
| 0805 | clear | Kaluga | yes |  | NE S | S SW |
| 0806 | forest |  |  |  | N SW | N NE SE |
| 0807 | clear |  |  |  |  | NE SE |
| 0808 | clear |  |  |  |  | NE |
| 0809 | clear | Orel |  |  | NE S SW |  |
| 0810 | clear |  |  |  | N |  |
| 0901 | forest |  |  |  | SE |  |
| 0902 | forest |  |  |  | SE SW |  |
| 0903 | clear |  |  |  | SE SW |  |
| 0904 | clear |  |  |  | NE S | S |
| 0905 | forest |  |  |  | N SW | N NE |
| 0906 | forest |  |  |  |  | SE S SW |
| 0907 | clear |  |  |  |  | N SW NW |
| 0908 | clear |  |  |  |  | S SW NW |
| 0909 | clear |  |  |  | NE SW | N NE SE |
| 0910 | clear |  |  |  |  | NE SE |
| 1001 | clear |  | yes |  | S NW | NE SE |
| 1002 | clear |  | yes |  | N SE NW | NE SE |
| 1003 | clear |  | yes |  | NE SW NW | NE |
| 1004 | clear |  | yes |  |  | S SW |
| 1005 | clear |  |  |  |  | N NE SE S |
| 1006 | clear |  |  |  |  | N NW |
| 1007 | clear |  |  |  |  |  |
| 1008 | clear |  |  |  | NE SW | SW |
| 1009 | clear |  |  |  |  | SW NW |
| 1010 | clear |  |  |  |  | NW |
| 1101 | clear |  |  |  |  | SW |
| 1102 | clear |  | yes |  | NE S | SW NW |
| 1103 | clear | Moscow |  |  | N NE SE S SW NW | S SW NW |
| 1104 | clear |  | yes |  | N S | N NE |
| 1105 | clear |  | yes |  | N S | SE S SW |
| 1106 | clear |  | yes |  | N S | N NW |
| 1107 | clear | Tula | yes |  | N S |  |
| 1108 | clear |  |  |  | N SW |  |
| 1109 | clear |  |  |  |  |  |
| 1110 | clear |  |  |  |  |  |
| 1201 | forest |  |  |  | NE SE SW |  |
| 1202 | clear |  |  |  | SE SW |  |
| 1203 | clear |  | yes |  | SE S NW | S SW |
| 1204 | clear |  |  |  | N SE | N NE SE S |
| 1205 | clear |  |  |  |  | N NW |
| 1206 | clear |  |  |  |  |  |
| 1207 | clear |  |  |  |  |  |
| 1208 | clear |  |  |  |  |  |
| 1209 | clear |  |  |  |  |  |
| 1210 | clear |  |  |  |  |  |
| 1301 | clear |  |  |  | SW |  |
| 1302 | clear |  |  |  | NE NW |  |
| 1303 | forest |  |  |  | NE NW |  |
| 1304 | clear |  |  |  | NE NW | S SW |
| 1305 | clear |  |  |  | SE NW | N NE NW |
| 1306 | clear |  |  |  |  |  |
| 1307 | clear |  |  |  |  |  |
| 1308 | clear |  |  |  |  |  |
| 1309 | clear |  |  |  |  |  |
| 1310 | clear |  |  |  |  |  |
| 1401 | clear |  |  |  | SW |  |
| 1402 | clear |  |  |  | SW |  |
| 1403 | clear |  |  |  | SW |  |
| 1404 | forest |  |  |  |  | S SW |
| 1405 | clear | Ryazan |  |  | S NW | N |
| 1406 | clear |  |  |  | N |  |
| 1407 | clear |  |  |  |  |  |
| 1408 | clear |  |  |  |  |  |
| 1409 | clear |  |  |  |  |  |
| 1410 | clear |  |  |  |  |  |
"""

DIRECTION = {"N": (0, -1, 0, -1), "NE": (1, -1, 1, 0), "SE": (1, 0, 1, 1), "S": (0, 1, 0, 1),
             "SW": (-1, 0, -1, 1), "NW": (-1, -1, -1, 0)}  # (dc, dr) for odd columns, then even columns


def toward(hex_id: str, direction: str) -> str:
    c, r = int(hex_id[:2]), int(hex_id[2:])
    odd_dc, odd_dr, even_dc, even_dr = DIRECTION[direction]
    dc, dr = (odd_dc, odd_dr) if c % 2 else (even_dc, even_dr)
    return f"{c + dc:02d}{r + dr:02d}"


def transcription() -> dict[str, dict]:
    hexes = {}
    for line in MAP_TABLE.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        hex_id, terrain, city, fort, setup, rail, river = cells
        hexes[hex_id] = {"terrain": terrain, "city": city or None, "fort": fort == "yes", "setup": setup or None,
                         "rail": {toward(hex_id, d) for d in rail.split()},
                         "river": {toward(hex_id, d) for d in river.split()}}
    return hexes


MAP = transcription()


def my_neighbours(hex_id: str) -> list[str]:
    """The neighbours of a hex on the map, in the order N, NE, SE, S, SW, NW."""
    return [h for h in (toward(hex_id, d) for d in DIRECTION) if h in MAP]


def forest(hex_id: str) -> bool:
    return MAP[hex_id]["terrain"] == "forest"
