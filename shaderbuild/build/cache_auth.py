"""Authenticating shared-cache entries: HMAC-SHA256 under a secret key.

An entry's own sha256 values only detect damage; anyone who can write to the store could
put a different shader's binary under a real key.  So every entry is sealed with
HMAC-SHA256(key, domain || action key || encoded entry), where the encoded entry holds the
manifest, messages, diagnostics, resources, dependencies and every output file.  Readers
without the key, or holding another key, cannot produce an entry a reader with the key
accepts.

The key is the `SHADERBUILD_CACHE_KEY` environment variable (the key text), else the
contents of the key file (`--cache-key-file PATH`, else `[cache] key_file`).  It must be
at least 16 bytes.
"""

from __future__ import annotations

import os

KEY_ENV = "SHADERBUILD_CACHE_KEY"
MODE_ENV = "SHADERBUILD_CACHE_MODE"
SEAL_MAGIC = b"SBAUTH1\n"
_DOMAIN = b"shaderbuild.cache/1\0"
_TAG = 32
MIN_KEY_BYTES = 16


class CacheKeyError(ValueError):
    """A key that is configured but unusable (unreadable file, too short)."""


def load_key(key_file: str | None = None) -> bytes | None:
    """The secret: $SHADERBUILD_CACHE_KEY, else the contents of `key_file`; None when neither is set."""
    if os.environ.get(KEY_ENV):
        key = os.environ[KEY_ENV].encode("utf-8")
        where = f"${KEY_ENV}"
    else:
        path = key_file
        if not path:
            return None
        try:
            with open(os.path.expanduser(path), "rb") as f:
                key = f.read(1 << 16).strip()
        except OSError as exc:
            raise CacheKeyError(f"cannot read the cache key file '{path}': {exc.strerror or exc}") from None
        where = f"the cache key file '{path}'"
    if len(key) < MIN_KEY_BYTES:
        raise CacheKeyError(f"{where} holds a key of {len(key)} bytes; a cache key needs at least {MIN_KEY_BYTES}")
    return key


def _tag(secret: bytes, action_key: str, body: bytes | memoryview) -> bytes:
    import hashlib  # here: loading OpenSSL costs every build start ~2 ms, and most builds seal nothing
    import hmac

    mac = hmac.new(secret, _DOMAIN, hashlib.sha256)
    mac.update(action_key.encode("ascii", "replace") + b"\0")
    mac.update(body)
    return mac.digest()


def seal(secret: bytes, action_key: str, body: bytes) -> bytes:
    """What is stored: magic, tag, then the encoded entry."""
    return SEAL_MAGIC + _tag(secret, action_key, body) + body


def split(data: bytes) -> tuple[bytes, bytes] | None:
    """(tag, body) of a sealed value, or None when the value carries no seal at all."""
    start = len(SEAL_MAGIC) + _TAG
    if len(data) < start or not data.startswith(SEAL_MAGIC):
        return None
    return data[len(SEAL_MAGIC):start], data[start:]


def verify(secret: bytes, action_key: str, tag: bytes, body: bytes) -> bool:
    import hmac

    return hmac.compare_digest(tag, _tag(secret, action_key, body))
