"""The ladder: players register, seek, are paired into clocked matches and rated (OpenSkill). Built on
the match core; imports ``service.match`` and below."""
