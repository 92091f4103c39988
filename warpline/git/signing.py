"""Signed verification records, with git's own SSH signing setup.

A record line under ``refs/notes/warpline`` is a claim anyone who can push that ref can
write. Where the user configures a signing key, as for signed commits, the line carries
``sig``: an SSH signature (``ssh-keygen -Y sign``, namespace ``warpline-record``) over the
line without it. The configuration is git's:

* signing (``verify-record``, ``ci --record``): ``git config warpline.signRecords true``
  with ``gpg.format ssh`` and ``user.signingKey`` naming a private key file (or a public
  key whose private half is in the ssh-agent), exactly what ``git commit -S`` uses. As with
  ``git commit -S``, a configured signature that cannot be made fails the note write;
* verifying (every answer with freshness): ``gpg.ssh.allowedSignersFile`` (the file
  ``git log --show-signature`` reads): a line whose signature verifies for a principal of
  that file is that principal's claim (``claimed_by: ci_identity``, ``signer``); any other
  note line is an unverified remote claim.

Only ``ssh-keygen`` runs, with a list of arguments (no shell), the message on stdin and a
time bound; at most ``MAX_VERIFY`` signatures are checked per answer, each once per process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import pygit2

__all__ = ["MAX_VERIFY", "NAMESPACE", "SigningFailed", "allowed_signers", "sign",
           "signing_key", "verify"]

NAMESPACE = "warpline-record"
MAX_VERIFY = 64
TIMEOUT_S = 10.0
MAX_SIGNATURE = 3000


class SigningFailed(ValueError):
    """Signing is configured and the signature could not be made."""


def _config(repo: pygit2.Repository, key: str) -> str | None:
    try:
        value = repo.config[key]
    except (KeyError, pygit2.GitError, ValueError):
        return None
    return str(value) if value else None


def _path(value: str) -> Path:
    return Path(os.path.expanduser(value))


def signing_key(repo: pygit2.Repository) -> Path | None:
    """The key records are signed with; None when signing is not configured. Raises
    ``SigningFailed`` when it is asked for but not set up the way git signs."""
    try:
        wanted = repo.config.get_bool("warpline.signRecords")
    except (KeyError, pygit2.GitError, ValueError):
        return None
    if not wanted:
        return None
    if (_config(repo, "gpg.format") or "openpgp") != "ssh":
        raise SigningFailed("warpline.signRecords is set but gpg.format is not `ssh`: "
                            "warpline signs records with git's SSH signing only (`git "
                            "config gpg.format ssh`).")
    key = _config(repo, "user.signingKey")
    if key is None or key.startswith("key::"):
        raise SigningFailed("warpline.signRecords is set but user.signingKey does not name "
                            "a key file (`git config user.signingKey ~/.ssh/id_ed25519`).")
    return _path(key)


def _keygen() -> str:
    found = shutil.which("ssh-keygen")
    if found is None:
        raise SigningFailed("ssh-keygen is not installed (package openssh-client)")
    return found


def sign(repo: pygit2.Repository, message: str) -> str | None:
    """The armored SSH signature of ``message``; None when signing is not configured."""
    key = signing_key(repo)
    if key is None:
        return None
    try:
        done = subprocess.run([_keygen(), "-q", "-Y", "sign", "-n", NAMESPACE, "-f", str(key)],
                              input=message.encode("utf-8"), capture_output=True,
                              timeout=TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SigningFailed(f"ssh-keygen -Y sign could not run ({exc})") from None
    if done.returncode != 0 or not done.stdout.startswith(b"-----BEGIN SSH SIGNATURE-----"):
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SigningFailed(f"ssh-keygen -Y sign with {key} failed: "
                            f"{why[-1] if why else done.returncode}")
    return done.stdout.decode("ascii").strip()


def allowed_signers(repo: pygit2.Repository) -> Path | None:
    """git's ``gpg.ssh.allowedSignersFile`` when it names a regular file."""
    value = _config(repo, "gpg.ssh.allowedSignersFile")
    if value is None:
        return None
    path = _path(value)
    return path if path.is_file() else None


def verify(allowed: Path, message: str, signature: str) -> str | None:
    """The principal of ``allowed`` whose key made ``signature`` over ``message``; None
    when it verifies for nobody (or cannot be checked)."""
    if len(signature) > MAX_SIGNATURE or not signature.startswith("-----BEGIN SSH SIGNATURE"):
        return None
    try:
        stamp = allowed.stat()
    except OSError:
        return None
    return _verify(str(allowed), stamp.st_mtime_ns, stamp.st_size, message, signature)


@lru_cache(maxsize=4096)
def _verify(allowed: str, _mtime: int, _size: int, message: str,
            signature: str) -> str | None:
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".sig", encoding="ascii") as handle:
        handle.write(signature + "\n")
        handle.flush()
        try:
            found = subprocess.run([keygen, "-Y", "find-principals", "-s", handle.name,
                                    "-f", allowed], capture_output=True, text=True,
                                   timeout=TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
            for principal in found.stdout.splitlines() if found.returncode == 0 else []:
                done = subprocess.run([keygen, "-Y", "verify", "-f", allowed, "-I",
                                       principal, "-n", NAMESPACE, "-s", handle.name],
                                      input=message.encode("utf-8"), capture_output=True,
                                      timeout=TIMEOUT_S, check=False)
                if done.returncode == 0:
                    return principal
        except (OSError, subprocess.TimeoutExpired):
            return None
    return None
