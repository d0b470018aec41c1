#!/usr/bin/python3
"""make tidy: clang-tidy with .clang-tidy's checks on every tracked .cpp file (or those given),
every finding an error.

clang-tidy's verdict is a function of what it reads: the preprocessed file, its flags, the checks
and clang-tidy itself. Its findings are in the checkout's own code, so the fingerprint takes of
the preprocessed file the text that comes from the checkout's files, and those files as written
(comments included: NOLINT is one), not what the system's headers add: a Debian point release
rewrites libc's or the kernel's headers, which would change every file's fingerprint without
changing a finding and have CI lint every file anew. A file whose fingerprint of those four is
listed in tools/tidy-clean.txt was found clean with exactly that input before, and is not linted
again; every other file is, and the list is rewritten with the files found clean. So a run after
a change lints what the change touched (a header touches every file that includes it) and a run
on an unchanged tree lints nothing, and either way says for every file whether it is clean.

  tools/tidy.py BUILD_DIR JOBS [FILE...]
BUILD_DIR holds the compilation database of a build configured with -DDTBENCH_UNITY=OFF (each
file compiled alone, as clang-tidy reads it).
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The list read and rewritten; TIDY_CLEAN_LIST elsewhere leaves the checkout as it was (CI, whose
# later builds would otherwise name themselves -dirty).
CLEAN_LIST = os.environ.get("TIDY_CLEAN_LIST") or os.path.join(SOURCE, "tools", "tidy-clean.txt")


def normalised(text):
    """Paths inside the checkout written as @SOURCE@: the same tree elsewhere, the same text."""
    return text.replace(SOURCE, "@SOURCE@")


def preprocess_command(entry):
    """The compiler's own command, made to print the preprocessed file instead of compiling."""
    args = shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c":
            continue
        out.append(a)
    return out[:-1] + ["-E", out[-1]], args


MARKER = re.compile(r'^# \d+ "(.*)"')


def own_text(preprocessed):
    """The preprocessed lines that come from files inside the checkout, without line markers or
    blank lines, and those files' paths: what a change to the checkout's code changes, and a
    system header's does not (except where a macro of it expands inside the checkout's code)."""
    own, kept, files = True, [], set()
    for line in preprocessed.splitlines():
        marker = MARKER.match(line)
        if marker:
            path = os.path.normpath(marker.group(1))
            own = path.startswith(SOURCE + os.sep)
            if own:
                files.add(path)
        elif own and line.strip():
            kept.append(line)
    return "\n".join(kept), sorted(files)


def fingerprint(entry, salt):
    command, args = preprocess_command(entry)
    text = subprocess.run(command, cwd=entry["directory"], capture_output=True, check=True).stdout
    h = hashlib.sha256(salt)
    h.update(normalised(" ".join(args[1:])).encode())
    kept, files = own_text(text.decode(errors="replace"))
    h.update(normalised(kept).encode())
    # The preprocessed text says which of the code is compiled (#if on the libraries' macros);
    # the files as written add the comments it drops, and clang-tidy reads NOLINT in them.
    for path in files:
        h.update(normalised(path).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def checks_salt(version_text, config):
    """What the verdict depends on besides the file: clang-tidy's version line and the checks.
    `clang-tidy --version` also prints the host's CPU ("Host CPU: znver3"), which differs from
    machine to machine without changing a finding; salting with it would lint every file anew
    on each machine."""
    lines = version_text.decode(errors="replace").splitlines()
    version = next((l.strip() for l in lines if "version" in l.lower()), "")
    return version.encode() + b"\n" + config


def lint(path, build):
    r = subprocess.run(["clang-tidy", "-p", build, "--quiet", path], capture_output=True, text=True)
    lines = [l for l in (r.stdout + r.stderr).splitlines()
             if l and not l.endswith("warnings generated.") and not l.endswith("warning generated.")
             and not l.endswith("error generated.") and not l.endswith("errors generated.")]
    return r.returncode == 0, "\n".join(lines)


def main():
    build, jobs, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    database = {os.path.realpath(e["file"]): e
                for e in json.load(open(os.path.join(build, "compile_commands.json")))}
    every = not files
    if every:
        files = subprocess.run(["git", "ls-files", "*.cpp"], cwd=SOURCE, capture_output=True,
                               text=True, check=True).stdout.split()
    paths = [os.path.realpath(os.path.join(SOURCE, f)) for f in files]
    missing = [p for p in paths if p not in database]
    if every and missing:
        # The other stack's adapters (trainers/comm/torch2/ on Debian 12): this build compiles
        # none of them, so clang-tidy cannot read them here.
        print(f"tidy: not compiled in this configuration, not linted: "
              f"{', '.join(os.path.relpath(p, SOURCE) for p in missing)}")
        paths = [p for p in paths if p in database]
    elif missing:
        print(f"tidy: not in {build}/compile_commands.json: {', '.join(missing)}")
        return 2
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True).stdout
    salt = checks_salt(version, open(os.path.join(SOURCE, ".clang-tidy"), "rb").read())
    known = {}
    if os.path.exists(CLEAN_LIST):
        for line in open(CLEAN_LIST):
            digest, _, name = line.strip().partition(" ")
            known[name] = digest

    def check(path):
        digest = fingerprint(database[path], salt)
        name = os.path.relpath(path, SOURCE)
        if known.get(name) == digest:
            return name, digest, True, None
        ok, text = lint(path, build)
        return name, digest, ok, text

    clean, failed, linted = {}, [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for name, digest, ok, text in pool.map(check, paths):
            linted += text is not None
            if ok:
                clean[name] = digest
            else:
                failed.append(name)
                print(text, flush=True)
    everything = {**{n: d for n, d in known.items() if os.path.exists(os.path.join(SOURCE, n))},
                  **clean}
    for name in failed:
        everything.pop(name, None)
    with open(CLEAN_LIST, "w") as f:
        for name in sorted(everything):
            f.write(f"{everything[name]} {name}\n")
    unchanged = len(paths) - linted
    if failed:
        print(f"clang-tidy: {len(failed)} of {len(paths)} files have findings: {', '.join(failed)}")
        return 1
    print(f"clang-tidy: all {len(paths)} files clean ({linted} linted now, {unchanged} unchanged "
          f"since they were found clean)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
