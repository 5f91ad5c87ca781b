#!/usr/bin/env python3
"""Runs the commands of docs/Tutorial.md and checks the output it shows.

In each ```console block, a line starting with "$ " is a command; the lines
after it, up to the next command, are output it must print (each line is
looked for, whole, in what the command writes to stdout and stderr). The
commands run in order, with bash, in a copy of docs/tutorial, with the
build's tools and the scripts on PATH, as the tutorial's setup block says.

Usage: run-tutorial.py TUTORIAL.md TUTORIAL_DIR BUILD_DIR WORK_DIR
"""

import os
import re
import shutil
import subprocess
import sys


def commands(markdown):
    """(command, [expected line]) in order, from the ```console blocks."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", markdown, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif line.strip() and found:
                found[-1][1].append(line)
    return found


def main():
    tutorial, files, build, work = sys.argv[1:5]
    source = os.path.dirname(os.path.dirname(os.path.abspath(tutorial)))
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(files, work)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([
        os.path.join(build, "bin"), os.path.join(source, "scripts"),
        os.path.join(source, "bench", "schedule"), "/usr/lib/llvm-22/bin",
        env.get("PATH", "")])
    env["VYRE_PLUGIN"] = os.path.join(build, "lib", "VyrePlugin.so")
    env["VYRE_BUILD_DIR"] = build
    steps = commands(open(tutorial).read())
    if not steps:
        sys.exit("run-tutorial.py: no ```console commands in " + tutorial)
    for command, expected in steps:
        run = subprocess.run(["bash", "-o", "pipefail", "-c", command],
                             cwd=work, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            sys.exit("run-tutorial.py: `%s` failed (exit %d):\n%s"
                     % (command, run.returncode, run.stdout))
        for line in expected:
            if line not in run.stdout:
                sys.exit("run-tutorial.py: `%s` did not print\n  %s\n"
                         "It printed:\n%s" % (command, line, run.stdout))
        print("ran: " + command)
    print("run-tutorial.py: %d commands" % len(steps))


if __name__ == "__main__":
    main()
