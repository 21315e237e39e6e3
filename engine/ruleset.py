"""The ruleset: which rules this engine plays, as a number every match records.

A match is checked by replaying its actions with the engine, so a change of the rules can make an
older match's log stop replaying. Any change that can alter a game (a different legal action, event,
die roll or state) bumps :data:`RULESET`. A match records the ruleset it was started under (the
service's ``match_created`` log entry and ``Match.ruleset``); a replay, and the service before it
continues a match, compare it with this one, so a change of rules is reported as such and never taken
for a forged log. engine/RULINGS.md says since which ruleset each ruling holds.

>>> RULESET
2
>>> UNVERSIONED
1
"""

from __future__ import annotations

RULESET = 2

#: The ruleset of a match recorded without one: the rules before rulesets were recorded.
UNVERSIONED = 1

#: What each ruleset changed.
CHANGES = {
    1: "the rules until rulesets were recorded (every match stored without a ruleset)",
    2: "issue 10: a named path that leaves a start hex in an enemy zone of control and comes back into it "
       "stops there (ruling 6); a move named by its destination may pass back through its start hex to take "
       "a city (ruling 3); a unit that must move away from under another may not end back in its own hex "
       "(ruling 1); Stronger Soviet Defensive Line and Improved 1st Shock are judged when the battle is "
       "declared (rulings 34, 35); the time_forfeit action",
}
