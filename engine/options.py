"""Match options: every rule that can be switched, documented in one place with the rule it implements.

>>> Options.from_json({"victory": "moscow"}).victory
'moscow'
>>> Options.from_json({"preset": "war_of_attrition"}).harsher_winter
True
>>> Options.from_json({"victory": "chess"})
Traceback (most recent call last):
...
engine.errors.IllegalAction: option victory must be one of points, moscow, not 'chess'
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import IllegalAction, Reason

#: name → (allowed values, default, the rule it implements)
OPTIONS: dict[str, tuple[tuple[Any, ...], Any, str]] = {
    "victory": (
        ("points", "moscow"), "points",
        'Clarification "Always Use Victory Points": 1 VP per enemy unit eliminated, 5 per controlled '
        'city, 20 for Moscow, 10 to the Germans once for occupying Moscow at the end of a Soviet player '
        'turn; the most points wins. "moscow" is the original rule: "Whoever holds Moscow at the end of '
        'the game wins."'),
    "soviet_replacements": (
        (5, 4, 3), 5,
        'Game Balance: "To benefit the Germans, change the Soviet replacements to four or even three." '
        '(3 is also the teaching setting.) Turns that give fewer points keep their number.'),
    "improved_first_shock": (
        (False, True), False,
        'Soviet Play Balance, Improved Soviet 1st Shock Unit: "The Soviet 1st Shock unit creates one column '
        'shift to the right when attacking from Moscow or a fortification hex if in communication." (It '
        'arrives at half strength as one of the replacements, as it always does; the shift is judged when its '
        'attack is declared.)'),
    "stronger_defensive_line": (
        (False, True), False,
        'Soviet Play Balance, Stronger Soviet Defensive Line: "Any Soviet unit that is targeted as defender '
        'while within Moscow or a fortification hex while adjacent to another Soviet unit also in such '
        'creates 2 left odds-ratio shifts instead of just 1." (Judged when the attack on it is declared.)'),
    "german_logistics": (
        (False, True), False,
        'Soviet Play Balance, German Logistics Problems: "The German player receives Replacement points only '
        'on turns 2, 4, and 6."'),
    "soviet_replacement_edge": (
        (False, True), False,
        'Optional Rule, Soviet Replacement Edge: "For turns 1, 2, and 3; allow replacements/in communication '
        'to be traced into the two triple-arrowed hexes north of Moscow, and the triple-arrowed hex south of '
        'Orel." (and turns 13 and 14 of the campaign)'),
    "harsher_winter": (
        (False, True), False,
        'Optional Rule, Harsher Winter: "The German player rolls twice on the Winter Attrition table for '
        'turns 9, 10, and 11. ... For all Winter Attrition rolls, all players must take losses against '
        'full-strength units if they are available."'),
    "early_first_shock": (
        (False, True), False,
        'Optional Rule, Possible Early 1st Shock: "On turn 3 of the Soviet replacement phase, the Soviet '
        'player rolls a die. If the die roll scores 4, 5 or 6, the Soviet First Shock unit becomes '
        'immediately available now as a replacement instead of on turn 4."'),
    "variable_weather": (
        (False, True), False,
        'Optional Rule, Variable Weather: on turns marked EARLY or LATE, "Roll a die ... at the start of the '
        'German Replacement phase (or ... during the Supply phase). Scoring a 4, 5, or 6 means that the '
        'weather is different": EARLY takes the next turn\'s weather, LATE the previous turn\'s.'),
    "advanced_crt": (
        (False, True), False,
        'Optional Rule, Advanced Combat Results Table: "allows 1:2 and 3:2 odds ratios". The rules text does '
        'not give the table, so asking for it is refused until its data file exists.'),
    "war_of_attrition": (
        (False, True), False,
        'The "War of Attrition" Variant: supply points, a supply phase before each replacement phase, extra '
        'supply, in-supply tracing, Assault and Winter Gear. The rules say to play it "in conjunction with all '
        '\'Soviet Play Balance\' and \'Optional\' rules": the preset "war_of_attrition" does; the switch alone '
        'is accepted for experiments and teaching.'),
}

#: Named sets of options. "war_of_attrition": the variant "in conjunction with all Soviet Play Balance
#: and Optional rules" (all but the unavailable Advanced CRT); "all": every option that can be played.
PRESETS: dict[str, dict[str, Any]] = {
    "war_of_attrition": {
        "war_of_attrition": True, "improved_first_shock": True, "stronger_defensive_line": True,
        "german_logistics": True, "soviet_replacement_edge": True, "harsher_winter": True,
        "early_first_shock": True, "variable_weather": True,
    },
}
PRESETS["all"] = dict(PRESETS["war_of_attrition"])


@dataclass(frozen=True)
class Options:
    victory: str = "points"
    soviet_replacements: int = 5
    improved_first_shock: bool = False
    stronger_defensive_line: bool = False
    german_logistics: bool = False
    soviet_replacement_edge: bool = False
    harsher_winter: bool = False
    early_first_shock: bool = False
    variable_weather: bool = False
    advanced_crt: bool = False
    war_of_attrition: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "Options":
        """Options from ``{name: value}``; ``"preset"`` names a set from PRESETS, applied first."""
        if data is not None and not isinstance(data, dict):
            raise IllegalAction(Reason.OPTION_UNAVAILABLE, f"options must be an object of name: value, not {data!r}")
        data = dict(data or {})
        values: dict[str, Any] = {}
        preset = data.pop("preset", None)
        if preset is not None:
            if not isinstance(preset, str) or preset not in PRESETS:
                raise IllegalAction(Reason.OPTION_UNAVAILABLE,
                                    f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
            values.update(PRESETS[preset])
        for name, value in data.items():
            if name not in OPTIONS:
                raise IllegalAction(Reason.OPTION_UNAVAILABLE,
                                    f"unknown option {name!r}; known options: {', '.join(OPTIONS)}")
            allowed = OPTIONS[name][0]
            if value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
                raise IllegalAction(Reason.OPTION_UNAVAILABLE,
                                    f"option {name} must be one of {', '.join(map(str, allowed))}, not {value!r}")
            values[name] = allowed[allowed.index(value)]  # the value itself: 3 for 3.0
        return cls(**values)

    @classmethod
    def parse(cls, text: str) -> "Options":
        """Options from a command-line list: ``all``, a preset, ``name`` (switch on) or ``name=value``.

        >>> Options.parse("variable_weather,soviet_replacements=4").soviet_replacements
        4
        """
        data: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, _, value = item.partition("=")
            if name in PRESETS and not value:
                data.update(PRESETS[name])
            elif not value:
                data[name] = True
            else:
                data[name] = int(value) if value.isdigit() else {"true": True, "false": False}.get(value, value)
        return cls.from_json(data)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def with_(self, **changes: Any) -> "Options":
        return replace(self, **changes)
