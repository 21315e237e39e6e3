"""The Redis password, read from a file: a Docker or Kubernetes secret mounted into the container, so it
is never in the environment, on a command line (``ps``) or in a URL that gets logged.

>>> import tempfile
>>> with tempfile.NamedTemporaryFile("w") as secret:
...     _ = secret.write("s3cret\\n"); secret.flush()
...     password_from_file(secret.name)
's3cret'
>>> password_from_file(None) is None
True
"""

from __future__ import annotations

from pathlib import Path


class CredentialsError(ValueError):
    """The password file cannot be used; the message says why, without the password."""


def password_from_file(path: str | None) -> str | None:
    """The password in the file at ``path`` (its first line; the line's end is not part of it), or None
    when no path is given."""
    if not path:
        return None
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise CredentialsError(f"cannot read the Redis password file {path}: {error.strerror}") from None
    lines = text.splitlines()
    if not lines or not lines[0]:
        raise CredentialsError(f"the Redis password file {path} is empty")
    return lines[0]
