"""What of a training script's folder ships to a rented instance: bounded, as git would see it,
never a secret. Design notes: docs/reference/modules.md (runner/folder.py)."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from planner.errors import InputError
from runner.bundle import SKIPPED_DIRS as BUNDLE_SKIPPED_DIRS

MAX_BYTES = 50 * 2**20  # code and configs; a dataset downloads on the instance
MAX_FILES = 2000
# caches, VCS and virtualenvs, as a custom model's code skips them; and the planner's own run journals (planner/journal's
# DEFAULT_BASE), which land beside a script run from its folder
SKIPPED_DIRS = BUNDLE_SKIPPED_DIRS | {".ruff_cache", "planner-runs"}
SECRET_DIRS = frozenset({".aws", ".ssh", ".gnupg", ".docker", ".kube"})
SECRET_FILES = (
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.keystore",
    "*.jks",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "credentials",
    "credentials.*",
    ".netrc",
    ".pypirc",
    ".npmrc",
    ".git-credentials",
    "*.kdbx",
    "service-account*.json",
)


def is_secret(name: str) -> bool:
    return any(fnmatch.fnmatch(name.lower(), pattern) for pattern in SECRET_FILES)


@dataclass(frozen=True)
class Shipped:
    """The files that ship (here, name in the bundle) and what was left out, and why."""

    folder: Path
    files: list[tuple[Path, str]]
    total_bytes: int
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (relative path, why)

    def lines(self) -> list[str]:
        """The listing the progress log shows before anything is launched."""
        names = [name.split("/", 1)[-1] for _, name in self.files]
        shown = ", ".join(names[:12]) + (
            f", ... ({len(names) - 12} more)" if len(names) > 12 else ""
        )
        here = Path.cwd()
        where = (
            os.path.relpath(self.folder)
            if here == self.folder or here in self.folder.parents
            else str(self.folder)
        )
        out = [
            f"shipping {len(names)} file(s), {self.total_bytes / 1024:,.1f} KiB, from {where}: {shown}"
        ]
        secrets = [p for p, why in self.left_out if why == "a secret"]
        if secrets:
            out.append("never shipped (secrets): " + ", ".join(secrets))
        ignored = [p for p, why in self.left_out if why != "a secret"]
        if ignored:
            out.append(
                f"left out by .gitignore and the usual caches: {len(ignored)} path(s): "
                + ", ".join(ignored[:8])
                + (f", ... ({len(ignored) - 8} more)" if len(ignored) > 8 else "")
            )
        return out


def _ignore_specs(folder: Path, directory: Path) -> list[tuple[Path, object]]:
    path = directory / ".gitignore"
    if not path.is_file():
        return []
    from pathspec import GitIgnoreSpec

    return [(directory, GitIgnoreSpec.from_lines(path.read_text(errors="replace").splitlines()))]


def script_folder(
    script: Path,
    prefix: str = "user",
    max_bytes: int = MAX_BYTES,
    max_files: int = MAX_FILES,
    folder: Path | None = None,
) -> Shipped:
    """The script's folder (or `folder`, the --workdir that holds it) as it ships (see the module docstring);
    InputError when it is too big."""
    folder = (folder or script.parent).resolve()
    specs: dict[Path, list[tuple[Path, object]]] = {folder: _ignore_specs(folder, folder)}
    files: list[tuple[Path, str]] = []
    left_out: list[tuple[str, str]] = []
    total = 0

    def ignored(path: Path, is_dir: bool, rules: list[tuple[Path, object]]) -> bool:
        for base, spec in rules:
            rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            if spec.match_file(rel):  # type: ignore[attr-defined]
                return True
        return False

    for root, dirs, names in os.walk(folder):
        here = Path(root)
        rules = specs[here]
        kept = []
        for d in sorted(dirs):
            rel = (here / d).relative_to(folder).as_posix()
            if d in SECRET_DIRS:
                left_out.append((rel + "/", "a secret"))
            elif d in SKIPPED_DIRS or ignored(here / d, True, rules) or (here / d).is_symlink():
                left_out.append((rel + "/", "ignored"))
            else:
                kept.append(d)
                specs[here / d] = rules + _ignore_specs(folder, here / d)
        dirs[:] = kept
        for name in sorted(names):
            path = here / name
            rel = path.relative_to(folder).as_posix()
            if is_secret(name):
                left_out.append((rel, "a secret"))
                continue
            if (
                name.endswith((".pyc", ".pyo"))
                or ignored(path, False, rules)
                or not path.is_file()
                or path.is_symlink()
            ):
                left_out.append((rel, "ignored"))
                continue
            total += path.stat().st_size
            files.append((path, f"{prefix}/{rel}"))
            if total > max_bytes or len(files) > max_files:
                raise InputError(
                    f"{script}: its folder {folder} holds more than {max_bytes // 2**20} MiB or {max_files:,} files to ship "
                    f"(at {rel}); the whole folder goes to the instance with the script",
                    hint="list data, checkpoints and outputs in the folder's .gitignore, or give the script a folder of its own "
                    "(or a smaller --workdir)",
                )
    own = f"{prefix}/{script.resolve().relative_to(folder).as_posix()}"
    if all(name != own for _, name in files):
        raise InputError(
            f"{script}: the script itself would not ship: {folder}'s .gitignore (or the usual caches) leave it out",
            hint="un-ignore the script, or move it out of the ignored folder",
        )
    return Shipped(folder, files, total, left_out)
